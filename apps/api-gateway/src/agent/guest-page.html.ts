import type { GuestRoomResponse } from '@seed/agent-token-contracts';

const STATES: Record<GuestRoomResponse['state'], { title: string; text: string }> = {
  waiting: { title: 'Waiting for the agent', text: 'Your agent has not joined yet. This page updates by itself; please keep it open.' },
  agent_joined: { title: 'The agent has joined', text: 'Your agent is in the room and ready for your call.' },
  expired: { title: 'This room has expired', text: 'No agent joined in time. Please ask for a new link.' },
};

/** The guest page: the room's state, no video. Reloads itself every few seconds while waiting. */
export function guestPage(room: GuestRoomResponse): string {
  const { title, text } = STATES[room.state];
  const refresh = room.state === 'waiting' ? '<meta http-equiv="refresh" content="5">' : '';
  return page(title, refresh, `
  <p class="state" data-state="${room.state}">${escape(title)}</p>
  <p>${escape(text)}</p>
  <p class="ref">Call reference: <code>${escape(room.call_reference)}</code></p>`);
}

export function guestErrorPage(status: number): string {
  const title = status === 404 ? 'Room not found' : 'This link is not valid';
  return page(title, '', `
  <p class="state" data-state="invalid">${title}</p>
  <p>The link may be mistyped or too old. Please ask for a new link.</p>`);
}

function page(title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  ${head}
  <title>${escape(title)}</title>
  <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}.state{font-size:1.5rem;font-weight:600}.ref{color:#666}</style>
</head>
<body>${body}
</body>
</html>
`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
