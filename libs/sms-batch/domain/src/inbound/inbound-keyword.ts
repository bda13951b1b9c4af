/** What an inbound text asks of the sub-account, when the whole text is one keyword. */
export type InboundKeyword = 'opt-out' | 'opt-in' | 'help';

const KEYWORDS: ReadonlyMap<string, InboundKeyword> = new Map([
  ['STOP', 'opt-out'],
  ['STOPALL', 'opt-out'],
  ['UNSUBSCRIBE', 'opt-out'],
  ['CANCEL', 'opt-out'],
  ['END', 'opt-out'],
  ['QUIT', 'opt-out'],
  ['START', 'opt-in'],
  ['YES', 'opt-in'],
  ['UNSTOP', 'opt-in'],
  ['HELP', 'help'],
  ['INFO', 'help'],
]);

/**
 * The keyword an inbound text is, or null. Only the whole text counts ("Stop by at 5" must not
 * opt anyone out); case and spaces are ignored anywhere in it ("stop all", " Stop\n"), and NFKC
 * folds the full-width letters some keyboards send ("ＳＴＯＰ").
 */
export function keywordOf(text: string): InboundKeyword | null {
  const word = text.normalize('NFKC').replace(/\s+/gu, '').toUpperCase();
  return KEYWORDS.get(word) ?? null;
}
