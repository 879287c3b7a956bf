/**
 * Domain errors. Every component throws these; each edge maps them (the API's error handler to HTTP
 * bodies, the tool server's tool results to tool errors, kernel/jobs/job-failure.ts to retry
 * decisions). Messages are written for the person reading them and never carry secret values.
 */
export class DomainError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The record (or route target) does not exist, or the caller may not know that it does. */
export class NotFoundError extends DomainError {}

/** Input broke a rule. `fields` maps each field to its messages, Nautobot-style. */
export class ValidationError extends DomainError {
  constructor(readonly fields: Record<string, string[]>) {
    super(
      Object.entries(fields)
        .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
        .join('; '),
    );
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/**
 * Items of a list written at once broke rules: `items` holds each item's `{field: [messages]}` in
 * the list's order, `{}` for the items that passed (Nautobot answers a bulk write so). `fields`
 * names each field after its item's index (`2.name`), for edges that speak of one object.
 */
export class BatchValidationError extends ValidationError {
  constructor(readonly items: Record<string, string[]>[]) {
    super(
      Object.fromEntries(
        items.flatMap((fields, index) => Object.entries(fields).map(([field, messages]) => [`${index}.${field}`, messages] as const)),
      ),
    );
  }
}

/** No credentials, or credentials that are unknown or expired. */
export class AuthenticationError extends DomainError {}

/** Valid credentials without the needed permission. */
export class PermissionDeniedError extends DomainError {}

/** A dependency this process needs (Redis, a provider) cannot be reached right now. */
export class UnavailableError extends DomainError {
  /** What the reader can do about it, for this cause (a worker to start, a setting to check, a wait). */
  readonly remedy?: string;

  constructor(message: string, options?: ErrorOptions & { remedy?: string }) {
    super(message, options);
    this.remedy = options?.remedy;
  }
}

/** The request conflicts with the current state (for example: no LLM model is configured yet). */
export class ConflictError extends DomainError {}

/**
 * An idempotency key sent again with a different request: the first request's outcome cannot
 * answer it, and running it as new would break the key's promise (Stripe and the IETF draft
 * answer 422).
 */
export class IdempotencyKeyReusedError extends DomainError {}

/** A service we depend on (an LLM provider, a secret it needs) failed; the message names the cause, never a secret value. */
export class UpstreamError extends DomainError {}

/** Too many requests from one caller; try again after `retryAfterSeconds`. */
export class RateLimitedError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** The client asked for a version of the API this service does not speak (`Accept: ...; version=X`). */
export class NotAcceptableError extends DomainError {}

/** A configuration problem found at start-up; the CLI prints it as one line and exits. */
export class StartupError extends DomainError {}
