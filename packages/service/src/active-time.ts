/**
 * The active time of the run a durable step belongs to (its agent run's
 * clock, external waits excluded). A step records the reading as it
 * finishes; replayed after a restart, where it takes no time, it moves the
 * run's clock forward to that reading, so the run-wide deadline still counts
 * what the step used before the restart.
 */
export interface ActiveTime {
  read(): number;
  advanceTo(activeMs: number): void;
}

