// The notification services Tidewatch ships (docs/notifications.md#services): one per module, each a
// NotificationService a plugin can list beside its own.
import type { NotificationService } from '../service.js';
import { createDiscordService } from './discord.js';
import { createGenericService } from './generic.js';
import { createGotifyService } from './gotify.js';
import { createLoggerService } from './logger.js';
import { createMatrixService } from './matrix.js';
import { createMqttService } from './mqtt.js';
import { createNtfyService } from './ntfy.js';
import { createPushoverService } from './pushover.js';
import { createSlackService } from './slack.js';
import { createSmtpService } from './smtp.js';
import { createTeamsService } from './teams.js';
import { createTelegramService } from './telegram.js';
import { createSignalService } from './signal.js';
import { createMattermostService } from './mattermost.js';
import { createGoogleChatService } from './googlechat.js';
import { createRocketChatService } from './rocketchat.js';
import { createZulipService } from './zulip.js';
import { createPushbulletService } from './pushbullet.js';
import { createOpsGenieService } from './opsgenie.js';
import { createPagerDutyService } from './pagerduty.js';
import { createBarkService } from './bark.js';
import { createIftttService } from './ifttt.js';
import { createJoinService } from './join.js';
import { createLarkService } from './lark.js';
import { createWeComService } from './wecom.js';
import { createTwilioService } from './twilio.js';
import { createNotifiarrService } from './notifiarr.js';

export {
  createDiscordService,
  createGenericService,
  createGotifyService,
  createLoggerService,
  createMatrixService,
  createMqttService,
  createNtfyService,
  createPushoverService,
  createSlackService,
  createSmtpService,
  createTeamsService,
  createTelegramService,
  createSignalService,
  createMattermostService,
  createGoogleChatService,
  createRocketChatService,
  createZulipService,
  createPushbulletService,
  createOpsGenieService,
  createPagerDutyService,
  createBarkService,
  createIftttService,
  createJoinService,
  createLarkService,
  createWeComService,
  createTwilioService,
  createNotifiarrService,
};

export const BUILTIN_SERVICES: readonly NotificationService[] = Object.freeze([
  createGenericService(),
  createSlackService(),
  createDiscordService(),
  createTelegramService(),
  createTeamsService(),
  createGotifyService(),
  createNtfyService(),
  createPushoverService(),
  createMatrixService(),
  createSmtpService(),
  createMqttService(),
  createSignalService(),
  createMattermostService(),
  createGoogleChatService(),
  createRocketChatService(),
  createZulipService(),
  createPushbulletService(),
  createOpsGenieService(),
  createPagerDutyService(),
  createBarkService(),
  createIftttService(),
  createJoinService(),
  createLarkService(),
  createWeComService(),
  createTwilioService(),
  createNotifiarrService(),
  createLoggerService(),
]);
