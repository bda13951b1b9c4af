export * from './keyring';
export * from './sealed-text';
export * from './keyed-hash';
export * from './is-keyring';
