/**
 * Settles with `work`, or rejects with the signal's reason as soon as the
 * signal aborts, whichever comes first. The work is not cancelled (it may
 * ignore its signal); its late outcome is handed to `onLate` and otherwise
 * dropped, never left as an unhandled rejection.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, onLate?: (outcome: PromiseSettledResult<T>) => void): Promise<T> {
  if (signal.aborted) {
    settleLate(work, onLate);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const abort = (): void => {
      if (done) return;
      done = true;
      settleLate(work, onLate);
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}

function settleLate<T>(work: Promise<T>, onLate?: (outcome: PromiseSettledResult<T>) => void): void {
  work.then(
    (value) => onLate?.({ status: 'fulfilled', value }),
    (reason: unknown) => onLate?.({ status: 'rejected', reason }),
  );
}
