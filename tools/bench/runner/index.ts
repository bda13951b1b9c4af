export * from './benchmark';
export * from './print';
export * from './recorded';
export * from './render';
export * from './result';
