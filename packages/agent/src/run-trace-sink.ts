import type { ContextDiagnostic, ContextTraceV5, ModelCallTrace, TraceSink } from '@strata/context';

type TraceDocument = Parameters<TraceSink['write']>[0];

/**
 * The run's view of its trace sink. The assembler's documents are held
 * until the model call made from that assembly ends (an assembly redone
 * after a session conflict never reached the model, so its trace is
 * dropped), then written in order with what the call made of the input. A
 * failed write never fails the run: it is kept as a diagnostic for the run's
 * result.
 */
export class RunTraceSink implements TraceSink {
  private readonly sink: TraceSink;
  private pending: TraceDocument[] = [];

  constructor(sink: TraceSink) {
    this.sink = sink;
  }

  async write(document: TraceDocument): Promise<void> {
    this.pending.push(document);
  }

  /** Drops the documents of an assembly that was not used. */
  discard(): void {
    this.pending = [];
  }

  /** Writes the held documents, each with the model call's record when given; returns a diagnostic per failed write. */
  async flush(modelCall?: ModelCallTrace): Promise<ContextDiagnostic[]> {
    const documents = this.pending;
    this.pending = [];
    const failures: ContextDiagnostic[] = [];
    for (const document of documents) {
      try {
        await this.sink.write(modelCall ? { ...document, body: { ...(document.body as ContextTraceV5), modelCall } } : document);
      } catch (error) {
        const name = `turn ${document.turn}${document.recoveryAttempt === undefined ? '' : ` (recovery ${document.recoveryAttempt})`}`;
        failures.push({ code: 'AGENT_TRACE_WRITE_FAILED', severity: 'warning', subject: name, message: `the trace of ${name} was not written: ${error instanceof Error ? error.message : String(error)}` });
      }
    }
    return failures;
  }
}
