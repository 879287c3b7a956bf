/** The name this server gives itself in `initialize`, and the server its writes are audited under. */
export const SERVER_NAME = 'aiops-platform';
