// The state store's collections of the agents plugin (store.ts), named apart so that index.ts can ask whether any
// agent is enrolled without loading the store's code (docs/plugins.md#loading-code-at-first-use).
/** Enrolled agents by name. */
export const ENROLLED = 'agents.enrolled';
/** Enrolment tokens by the SHA-256 of the token. */
export const ENROLMENTS = 'agents.enrolments';
