// kafkajs's internal request queue (no published types); only what the idle-timer fix touches.
declare module 'kafkajs/src/network/requestQueue' {
  class RequestQueue {
    pending: unknown[];
    throttledUntil: number;
    throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
    checkPendingRequests(): void;
    scheduleCheckPendingRequests(): void;
  }
  export default RequestQueue;
}
