/** What sms-batch's main thread and its follower thread say to each other. */
export const FollowerThreadMessage = {
  /** Worker -> main: the followers are running. */
  Ready: 'ready',
  /** Main -> worker: events of unknown types were appended; every follower reads them now. */
  Wake: 'wake',
  /** Main -> worker: finish and end. */
  Stop: 'stop',
} as const;

/** Main -> worker: events of these types were appended; the followers handling them read them now. */
export interface WakeForMessage {
  wakeFor: string[];
}

export const isWakeFor = (message: unknown): message is WakeForMessage =>
  typeof message === 'object' && message !== null && Array.isArray((message as Partial<WakeForMessage>).wakeFor);
