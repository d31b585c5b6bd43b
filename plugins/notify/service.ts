// The notification service interface lives in the core, so a third-party plugin can add a scheme
// without importing this plugin (docs/notifications.md#adding-a-service).
export type { NotificationMessage, NotificationSender, NotificationService } from '../../core/index.js';
export { notificationServiceKey } from '../../core/index.js';
