/** A chat message of a worker prompt; a subset of the canonical messages of `@strata/context`. */
export interface WorkerMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}
