/** The simulator's event log: what really happened, for success checks, critic grounding and the evaluator only. */
export interface SimEvent {
  /** Simulated seconds since the episode began. */
  t: number;
  /** Number of skill goals that had ended when this happened. */
  step: number;
  kind:
    | "skill_started"
    | "skill_succeeded"
    | "skill_failed"
    | "skill_canceled"
    | "picked"
    | "released"
    | "opened"
    | "closed"
    | "moved"
    | "contact"
    | "detected"
    | "perturbation"
    // Undesirable behaviours (robots/msgs/rollout.ts UNDESIRABLE), measured from the physics, never from intent.
    | "knocked_over"
    | "pushed"
    | "dragged"
    | "dropped"
    | "spilled"
    | "squeezed"
    | "passed_over"
    | "left_open"
    | "struck_table"
    | "rushed"
    | "detoured"
    | "dithered"
    | "idled";
  robot?: string;
  skill?: string;
  goalId?: string;
  object?: string;
  place?: string;
  detail?: string;
  /** Undesirable events: the cause the world measured (robots/msgs/rollout.ts CAUSES), or `unknown`. */
  cause?: string;
}

export class EventLog {
  private events: SimEvent[] = [];
  constructor(private readonly limit = 100_000) {}
  add(event: SimEvent): void {
    this.events.push(event);
    if (this.events.length > this.limit) this.events.splice(0, this.events.length - this.limit);
  }
  since(index = 0): SimEvent[] {
    return this.events.slice(index);
  }
  get length(): number {
    return this.events.length;
  }
  /** Forgets every event (a world reset starts a new episode). */
  clear(): void {
    this.events = [];
  }
}
