import { isValidInternationalNumber } from './international-number.validator';
import { normalizeMsisdn } from './msisdn';
import { analyzeText } from './sms-text';
const gb = (i: number) => `447${String(400000000 + i * 7919).slice(0, 9)}`;
it('bench2', () => {
  for (let r = 0; r < 3; r++) {
    let t = performance.now(); let u = 0;
    for (let i = 0; i < 10000; i++) if (isValidInternationalNumber(gb(i + r)) === undefined) u++;
    console.log('fast', (performance.now() - t).toFixed(1), 'undecided', u);
    t = performance.now();
    for (let i = 0; i < 10000; i++) normalizeMsisdn('+' + gb(i + r));
    console.log('normalize', (performance.now() - t).toFixed(1));
    t = performance.now();
    for (let i = 0; i < 10000; i++) analyzeText(`Dear customer ${i}, your parcel ${i * 31} arrives tomorrow between 9 and 12. Reply STOP to opt out. Ref ${i}`);
    console.log('analyze', (performance.now() - t).toFixed(1));
    t = performance.now();
    for (let i = 0; i < 10000; i++) new Date(Date.parse('2030-02-01T00:00:00Z')).toISOString();
    console.log('dates', (performance.now() - t).toFixed(1));
  }
});
