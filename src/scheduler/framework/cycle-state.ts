// Data plugins share within one scheduling cycle (framework.CycleState). Preemption clones it per
// candidate node so that simulated pod removals do not leak between nodes.

export interface StateData {
  clone(): StateData;
}

export class CycleState {
  private readonly data = new Map<string, StateData>();
  /** Plugins whose PreFilter returned Skip: their Filter is not run this cycle. */
  readonly skipFilterPlugins = new Set<string>();
  /** Plugins whose PreScore returned Skip: their Score is not run this cycle. */
  readonly skipScorePlugins = new Set<string>();
  /**
   * The framework's filters less the skipped ones, once the framework has worked them out (set
   * after PreFilter; a clone works them out again).
   */
  activeFilters: readonly object[] | undefined = undefined;

  read<T extends StateData>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }

  /** Reads state a previous extension point must have written; a missing entry is a plugin bug. */
  require<T extends StateData>(key: string): T {
    const value = this.data.get(key);
    if (value === undefined) throw new Error(`reading ${JSON.stringify(key)} from cycleState: not found`);
    return value as T;
  }

  write(key: string, value: StateData): void {
    this.data.set(key, value);
  }

  delete(key: string): void {
    this.data.delete(key);
  }

  clone(): CycleState {
    const copy = new CycleState();
    for (const [key, value] of this.data) copy.data.set(key, value.clone());
    for (const name of this.skipFilterPlugins) copy.skipFilterPlugins.add(name);
    for (const name of this.skipScorePlugins) copy.skipScorePlugins.add(name);
    return copy;
  }
}

/** State that is never modified after it is written: clones share it. */
export class ImmutableState<T> implements StateData {
  constructor(readonly value: T) {}

  clone(): StateData {
    return this;
  }
}
