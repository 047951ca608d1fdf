export { buildChannels, channelSecrets, type Channel, type ChannelContext } from './channels.js';
export { Notifier, type NotifierOptions } from './notifier.js';
export { NotificationSender, retryDelay, type DeliveryOutcome, type SenderOptions } from './sender.js';
export { simpleMessage, stableMessageId, type MessageOrigin, type NotificationMessage } from './message.js';
export type { Transition } from './transitions.js';
export { emailPort } from './email-channel.js';
export { messageOrigin } from './origin.js';
export { readChannelCa } from './ca-file.js';
export { reportDue } from './daily-report.js';
