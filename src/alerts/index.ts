/** Live alerts: the timeline's detectors run on each stored round, their events sent to Alertmanager and webhooks. */
export { LiveAlerts, startLiveAlerts, type LiveAlertsOptions, type ReceiverStats } from './live-alerts.ts';
export { LiveTimeline, DEFAULT_REBASE_AFTER_NS, type LiveSource, type LiveTimelineOptions } from './live-timeline.ts';
export { EventTracker, eventKey, type LiveTransition } from './event-tracker.ts';
export type { LiveEngine, EngineHooks } from './live-engine.ts';
export { prepareReceivers, route, type AlertReceiver, type RoutedReceiver } from './receivers.ts';
export { compileAlertFilter, AlertFilterError, KIND_FAMILIES } from './alert-filter.ts';
export { alertLabels, alertAnnotations, generatorUrl, eventCommand, SEVERITY_LABEL } from './alert-labels.ts';
export {
  webhookBody,
  webhookSignature,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  DELIVERY_HEADER,
} from './webhook-receiver.ts';
