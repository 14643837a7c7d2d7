// The result of running a plugin (kube-scheduler's framework.Status): a code, the reasons a
// node was rejected, and which plugin said so. `null` stands for Success on hot paths so a
// passing filter allocates nothing.

export const Code = {
  Success: 0,
  Error: 1,
  /** The pod does not fit now; preemption may help. */
  Unschedulable: 2,
  /** The pod does not fit and preemption on this node cannot help. */
  UnschedulableAndUnresolvable: 3,
  Wait: 4,
  Skip: 5,
  Pending: 6,
} as const;
export type Code = (typeof Code)[keyof typeof Code];

const CODE_NAMES: Readonly<Record<Code, string>> = {
  0: 'Success',
  1: 'Error',
  2: 'Unschedulable',
  3: 'UnschedulableAndUnresolvable',
  4: 'Wait',
  5: 'Skip',
  6: 'Pending',
};

export class Status {
  /** The plugin that produced the status; set by the framework. */
  plugin = '';

  constructor(
    readonly code: Code,
    readonly reasons: readonly string[] = [],
    readonly error?: Error,
  ) {}

  static unschedulable(...reasons: string[]): Status {
    return new Status(Code.Unschedulable, reasons);
  }

  static unresolvable(...reasons: string[]): Status {
    return new Status(Code.UnschedulableAndUnresolvable, reasons);
  }

  static fromError(error: unknown): Status {
    const err = error instanceof Error ? error : new Error(String(error));
    return new Status(Code.Error, [err.message], err);
  }

  static skip(): Status {
    return new Status(Code.Skip);
  }

  isSuccess(): boolean {
    return this.code === Code.Success;
  }

  /** Unschedulable, UnschedulableAndUnresolvable or Pending: the pod was turned down, not failed. */
  isRejected(): boolean {
    return (
      this.code === Code.Unschedulable ||
      this.code === Code.UnschedulableAndUnresolvable ||
      this.code === Code.Pending
    );
  }

  isSkip(): boolean {
    return this.code === Code.Skip;
  }

  /** The reasons joined as Kubernetes joins them (`, `). */
  message(): string {
    return this.reasons.join(', ');
  }

  withPlugin(plugin: string): this {
    this.plugin = plugin;
    return this;
  }

  toString(): string {
    return `${CODE_NAMES[this.code]}: ${this.message()}`;
  }
}

export function codeName(code: Code): string {
  return CODE_NAMES[code];
}

/** A status's code where `null` means Success. */
export function codeOf(status: Status | null): Code {
  return status === null ? Code.Success : status.code;
}

export function isSuccess(status: Status | null): boolean {
  return status === null || status.code === Code.Success;
}
