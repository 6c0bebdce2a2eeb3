/**
 * One clock per simulated world. Skills are motions — generators that advance one control tick per `yield` —
 * and the clock steps physics once per tick for all of them, so two robots acting at once share one timeline.
 * `speed` paces simulated time against wall time (Infinity: as fast as the CPU allows, yielding to I/O between bursts).
 */
export type Motion = Generator<void, void, void>;

interface Running {
  motion: Motion;
  signal?: AbortSignal;
  resolve(outcome: "done" | "canceled"): void;
  reject(err: Error): void;
}

export class SimClock {
  private running = new Set<Running>();
  private loop?: Promise<void>;
  /** Simulated seconds. */
  time = 0;
  ticks = 0;
  private stopped = false;
  /** Set while the world is paused: resolves when it goes on. */
  private held?: { promise: Promise<void>; release(): void };

  constructor(
    /** Seconds per control tick. */
    readonly tick: number,
    /** Advances physics by one tick. */
    private readonly stepPhysics: () => void,
    /** Simulated seconds per wall second. */
    readonly speed = Infinity,
  ) {}

  /** Runs `motion` to its end; resolves "canceled" if `signal` aborts first (the motion is simply not advanced further). */
  run(motion: Motion, signal?: AbortSignal): Promise<"done" | "canceled"> {
    if (this.stopped) return Promise.resolve("canceled");
    return new Promise((resolve, reject) => {
      this.running.add({ motion, signal, resolve, reject });
      this.loop ??= this.drive().finally(() => (this.loop = undefined));
    });
  }

  get paused(): boolean {
    return !!this.held;
  }

  /**
   * Holds simulated time where it is (Gazebo's pause_physics): no motion advances and physics is not stepped, while
   * goals stay accepted. Wall time spent paused is not made up afterwards.
   */
  pause(): void {
    if (this.held) return;
    let release!: () => void;
    const promise = new Promise<void>((r) => (release = r));
    this.held = { promise, release };
  }

  unpause(): void {
    const held = this.held;
    this.held = undefined;
    held?.release();
  }

  /** Cancels every running motion and waits until physics is no longer being stepped. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unpause();
    for (const r of this.running) r.resolve("canceled");
    this.running.clear();
    await this.loop;
  }

  /** A motion that just lets `seconds` of simulated time pass. */
  *wait(seconds: number): Motion {
    for (let t = 0; t < seconds; t += this.tick) yield;
  }

  private async drive(): Promise<void> {
    let wallStart = performance.now();
    let simStart = this.time;
    let sinceYield = 0;
    while (this.running.size > 0) {
      if (this.held) {
        // A goal canceled while paused ends now; the others wait.
        for (const r of [...this.running]) {
          if (!r.signal?.aborted) continue;
          this.running.delete(r);
          r.resolve("canceled");
        }
        await Promise.race([this.held.promise, new Promise((r) => setTimeout(r, 50))]);
        // Paced from here on, so the paused wall time is not run through at full speed.
        wallStart = performance.now();
        simStart = this.time;
        continue;
      }
      for (const r of [...this.running]) {
        if (r.signal?.aborted) {
          this.running.delete(r);
          r.resolve("canceled");
          continue;
        }
        try {
          if (r.motion.next().done) {
            this.running.delete(r);
            r.resolve("done");
          }
        } catch (err) {
          this.running.delete(r);
          r.reject(err as Error);
        }
      }
      this.stepPhysics();
      this.time += this.tick;
      this.ticks++;
      sinceYield += this.tick;
      if (sinceYield >= 0.05) {
        sinceYield = 0;
        const due = Number.isFinite(this.speed) ? wallStart + ((this.time - simStart) / this.speed) * 1000 : 0;
        const wait = due - performance.now();
        await new Promise((r) => (wait > 1 ? setTimeout(r, wait) : setImmediate(r)));
      }
    }
  }
}
