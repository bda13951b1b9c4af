export * from './benchmark';
export * from './print';
export * from './result';
