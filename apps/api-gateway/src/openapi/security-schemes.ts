/** Names of the security schemes in the documents (components.securitySchemes). */
export const SecuritySchemes = {
  apiKey: 'apiKey',
  agentToken: 'agentToken',
  adminToken: 'adminToken',
} as const;
