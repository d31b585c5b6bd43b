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
  createLoggerService(),
]);
