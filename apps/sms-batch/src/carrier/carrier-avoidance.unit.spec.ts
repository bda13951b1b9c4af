import pino from 'pino';
import { CarrierAvoidance } from './carrier-avoidance';
import { NO_RESPONSE_STATUS, NOT_BOUND } from './submit-outcome';

describe('CarrierAvoidance', () => {
  const avoidance = () => new CarrierAvoidance(5000, pino({ level: 'silent' }));

  it('passes over a carrier that throttled, answered a temporary error or left a submit unanswered', () => {
    for (const status of [0x58, 0x14, 0x64, NO_RESPONSE_STATUS]) {
      const a = avoidance();
      a.note('x', status);
      expect(a.remainingMs('x')).toBeGreaterThan(4000);
      expect(a.remainingMs('y')).toBe(0);
    }
  });

  it('does not for a final refusal or for a session of ours that was not bound', () => {
    const a = avoidance();
    a.note('x', 0x0b);
    a.note('x', NOT_BOUND.ok ? 0 : NOT_BOUND.status);
    expect(a.remainingMs('x')).toBe(0);
  });
});
