export * from './agent-token.commands';
export * from './agent-token.events';
