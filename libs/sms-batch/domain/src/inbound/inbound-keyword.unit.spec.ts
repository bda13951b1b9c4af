import { keywordOf } from './inbound-keyword';

describe('keywordOf', () => {
  it.each(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'])('%s opts out', (word) => {
    expect(keywordOf(word)).toBe('opt-out');
  });

  it.each(['START', 'YES', 'UNSTOP'])('%s opts back in', (word) => {
    expect(keywordOf(word)).toBe('opt-in');
  });

  it.each(['HELP', 'INFO'])('%s asks for help', (word) => {
    expect(keywordOf(word)).toBe('help');
  });

  it('ignores case and spaces anywhere in the text', () => {
    expect(keywordOf('stop')).toBe('opt-out');
    expect(keywordOf('  Stop \n')).toBe('opt-out');
    expect(keywordOf('Stop All')).toBe('opt-out');
    expect(keywordOf('un stop')).toBe('opt-in');
    expect(keywordOf('\tHeLp\u00a0')).toBe('help');
  });

  it('reads full-width letters as their ASCII keyword', () => {
    expect(keywordOf('ＳＴＯＰ')).toBe('opt-out');
  });

  it('counts only the whole text', () => {
    expect(keywordOf('Stop by at 5')).toBeNull();
    expect(keywordOf('STOP.')).toBeNull();
    expect(keywordOf('yes please')).toBeNull();
    expect(keywordOf('STOPPED')).toBeNull();
    expect(keywordOf('')).toBeNull();
    expect(keywordOf('   ')).toBeNull();
  });
});
