import { isUpcast, upcast, type Upcaster } from './upcaster';

interface NameV1 {
  name: string;
}
interface NameV2 {
  first: string;
  last: string;
}

const splitName: Upcaster = {
  type: 'PersonRegistered',
  fromVersion: 1,
  upcast: (data) => {
    const [first = '', last = ''] = (data as NameV1).name.split(' ');
    return { first, last } satisfies NameV2;
  },
};
const addTitle: Upcaster = { type: 'PersonRegistered', fromVersion: 2, upcast: (data) => ({ ...(data as NameV2), title: null }) };
const addCountry: Upcaster = { type: 'PersonRegistered', fromVersion: 3, upcast: (data) => ({ ...(data as object), country: 'GB' }) };
const counterV1: Upcaster = { type: 'CounterIncremented', fromVersion: 1, upcast: (data) => ({ ...(data as object), by: 1 }) };

const registeredV1 = { type: 'PersonRegistered', schemaVersion: 1, data: { name: 'Ada Lovelace' } };

describe('upcast', () => {
  it('returns the event as stored when no upcaster applies', () => {
    const event = { type: 'PersonRegistered', schemaVersion: 1, data: { name: 'Ada Lovelace' } };
    expect(upcast([], event)).toEqual({ schemaVersion: 1, data: { name: 'Ada Lovelace' } });
    expect(upcast([], event).data).toBe(event.data);
  });

  it('applies one upcaster and raises the version by one', () => {
    expect(upcast([splitName], registeredV1)).toEqual({ schemaVersion: 2, data: { first: 'Ada', last: 'Lovelace' } });
  });

  it('chains upcasters from the stored version to the newest, each on the output of the one before', () => {
    expect(upcast([splitName, addTitle, addCountry], registeredV1)).toEqual({
      schemaVersion: 4,
      data: { first: 'Ada', last: 'Lovelace', title: null, country: 'GB' },
    });
  });

  it('finds the chain whatever order the upcasters are listed in', () => {
    expect(upcast([addCountry, addTitle, splitName], registeredV1)).toEqual(upcast([splitName, addTitle, addCountry], registeredV1));
  });

  it('starts the chain at the stored version: a newer event skips the upcasters below it', () => {
    const storedV2 = { type: 'PersonRegistered', schemaVersion: 2, data: { first: 'Grace', last: 'Hopper' } };
    const spy = jest.fn(splitName.upcast);
    expect(upcast([{ ...splitName, upcast: spy }, addTitle], storedV2)).toEqual({
      schemaVersion: 3,
      data: { first: 'Grace', last: 'Hopper', title: null },
    });
    expect(spy).not.toHaveBeenCalled();
  });

  it('leaves an event at the current version untouched', () => {
    const current = { type: 'PersonRegistered', schemaVersion: 4, data: { first: 'A', last: 'B', title: null, country: 'GB' } };
    expect(upcast([splitName, addTitle, addCountry], current)).toEqual({ schemaVersion: 4, data: current.data });
  });

  it('stops where the chain has a gap', () => {
    // No 2 -> 3 step: the 3 -> 4 upcaster must not be applied to version-2 data.
    expect(upcast([splitName, addCountry], registeredV1)).toEqual({ schemaVersion: 2, data: { first: 'Ada', last: 'Lovelace' } });
  });

  it('applies only the upcasters of the event type', () => {
    const counter = { type: 'CounterIncremented', schemaVersion: 1, data: { n: 1 } };
    const all = [splitName, addTitle, counterV1];
    expect(upcast(all, counter)).toEqual({ schemaVersion: 2, data: { n: 1, by: 1 } });
    expect(upcast(all, registeredV1)).toEqual({ schemaVersion: 3, data: { first: 'Ada', last: 'Lovelace', title: null } });
  });

  it('does not change the stored event it was given', () => {
    const stored = { type: 'PersonRegistered', schemaVersion: 1, data: { name: 'Ada Lovelace' } };
    upcast([splitName, addTitle], stored);
    expect(stored).toEqual({ type: 'PersonRegistered', schemaVersion: 1, data: { name: 'Ada Lovelace' } });
  });

  it('calls each step once per read', () => {
    const first = jest.fn(splitName.upcast);
    const second = jest.fn(addTitle.upcast);
    upcast([{ ...splitName, upcast: first }, { ...addTitle, upcast: second }], registeredV1);
    expect(first).toHaveBeenCalledTimes(1);
    expect(first).toHaveBeenCalledWith({ name: 'Ada Lovelace' });
    expect(second).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledWith({ first: 'Ada', last: 'Lovelace' });
  });
});

describe('isUpcast', () => {
  it('is true only where an upcaster starts: that type at that version', () => {
    const upcasters = [splitName, addTitle, counterV1];
    expect(isUpcast(upcasters, 'PersonRegistered', 1)).toBe(true);
    expect(isUpcast(upcasters, 'PersonRegistered', 2)).toBe(true);
    expect(isUpcast(upcasters, 'PersonRegistered', 3)).toBe(false);
    expect(isUpcast(upcasters, 'CounterIncremented', 2)).toBe(false);
    expect(isUpcast(upcasters, 'Other', 1)).toBe(false);
    expect(isUpcast([], 'PersonRegistered', 1)).toBe(false);
  });
});
