import { InboundRequestError, parseInboundRequest } from './inbound-request';

const problems = (body: unknown): string[] => {
  try {
    parseInboundRequest(body);
  } catch (error) {
    if (error instanceof InboundRequestError) return error.problems;
    throw error;
  }
  return [];
};

describe('the body of POST /inbound', () => {
  it('fills in the defaults', () => {
    expect(parseInboundRequest({ source: '447700900123', destination: '447700100100', text: 'STOP' })).toEqual({
      source: '447700900123', destination: '447700100100', text: 'STOP',
      sourceTon: 1, sourceNpi: 1, destTon: 1, destNpi: 1,
      encoding: null, concatenation: 'udh8', parts: null, reference: null, order: 'in-order', duplicate: null,
      loseFirstResponse: false, resendAfterMs: 1000, spreadParts: false, count: null,
    });
  });

  it('takes every option', () => {
    const body = {
      source: 'ACME', destination: '12345', text: 'x', sourceTon: 5, sourceNpi: 0, destTon: 3, destNpi: 0, encoding: 'latin1',
      concatenation: 'udh16', parts: 2, reference: 0xffff, order: 'shuffle', duplicate: 1, loseFirstResponse: true, resendAfterMs: 0, spreadParts: true, count: 3,
    };
    expect(parseInboundRequest(body)).toEqual(body);
  });

  it('names every problem at once', () => {
    expect(problems({ source: 7, destination: 'x'.repeat(21), text: null, order: 'random', parts: 0, duplicate: 1.5, loseFirstResponse: 'yes', extra: 1 })).toEqual([
      'unknown key extra',
      'source must be a string of 1 to 20 printable ASCII characters',
      'destination must be a string of 1 to 20 printable ASCII characters',
      'text must be a string',
      'parts must be a whole number from 1 to 255',
      'order must be one of in-order, reverse, shuffle',
      'duplicate must be a whole number from 1 to 255',
      'loseFirstResponse must be true or false',
    ]);
    expect(problems([])).toEqual(['the body must be a JSON object']);
  });

  it('bounds the reference by the concatenation: 8 bits for udh8, 16 otherwise', () => {
    const base = { source: '1', destination: '2', text: 'x' };
    expect(problems({ ...base, reference: 256 })).toEqual(['reference must be a whole number from 0 to 255']);
    expect(problems({ ...base, reference: 256, concatenation: 'sar' })).toEqual([]);
  });
});
