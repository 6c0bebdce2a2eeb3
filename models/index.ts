/**
 * Model backends behind the roles, and the one way nodes ask a model for a structured answer: the request is retried
 * when it fails in transport (timeouts, 429, 5xx, refused connections: exponential backoff with jitter, Retry-After
 * honoured, bounded in count and by the run's wall budget), the answer's JSON is found wherever the model put it
 * (a code fence, prose around it) and validated against its zod schema, and only an answer that does not fit goes
 * back for repair, a bounded number of times. Every request sent is counted with its outcome.
 *
 * This file names what the rest of the code imports; the parts are errors.ts, usage.ts (and the model scope),
 * backends.ts, retries.ts and structured.ts.
 */
export { modelConfig, ROLES, type ModelConfig, type Role } from "./roles";
export { ModelOutputError, ModelRequestError, ModelUnavailableError } from "./errors";
export { addUsage, totalUsage, withModelScope, type ModelScope, type RoleUsage, type Usage } from "./usage";
export { createModels, type Reasoner, type RoleModels } from "./backends";
export { askStructured, extractJson, imagePart, type Ask } from "./structured";
export { backoffMs, retryAfterMs, transportFailure } from "./retries";
