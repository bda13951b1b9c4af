import { guestErrorPage, guestPage } from './guest-page.html';

describe('guest page', () => {
  it('shows each state, reloading only while the guest waits', () => {
    const waiting = guestPage({ call_reference: 'case-4711', state: 'waiting', expires_at: '2030-01-15T10:15:00.000Z' });
    expect(waiting).toContain('data-state="waiting"');
    expect(waiting).toContain('Waiting for the agent');
    expect(waiting).toContain('<meta http-equiv="refresh" content="5">');
    const joined = guestPage({ call_reference: 'case-4711', state: 'agent_joined', expires_at: '2030-01-15T10:15:00.000Z' });
    expect(joined).toContain('The agent has joined');
    expect(joined).not.toContain('http-equiv="refresh"');
    expect(guestPage({ call_reference: 'case-4711', state: 'expired', expires_at: '2030-01-15T10:15:00.000Z' })).toContain('This room has expired');
  });

  it('escapes what it shows, and has no script', () => {
    const page = guestPage({ call_reference: '<script>x</script>"', state: 'waiting', expires_at: '' });
    expect(page).not.toContain('<script>');
    expect(page).toContain('&#60;script&#62;x&#60;/script&#62;&#34;');
    expect(guestErrorPage(401)).toContain('This link is not valid');
    expect(guestErrorPage(404)).toContain('Room not found');
  });
});
