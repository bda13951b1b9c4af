/** What sms-batch's main thread and its follower thread say to each other. */
export const FollowerThreadMessage = {
  /** Worker -> main: the followers are running. */
  Ready: 'ready',
  /** Main -> worker: events were appended; read them now rather than at the next poll. */
  Wake: 'wake',
  /** Main -> worker: finish and end. */
  Stop: 'stop',
} as const;
