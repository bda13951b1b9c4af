export { CarrierPasswords, CarrierPasswordsUnavailable } from './carrier-passwords';
export { readRoutingConfig, type RoutingConfigSnapshot } from './read-routing-config';
export { RoutingConfigHandler } from './routing-config.handler';
