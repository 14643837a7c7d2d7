// framework.Resource: amounts of every resource the scheduler accounts for, as plain numbers.

import {
  isScalarResource,
  RESOURCE_CPU,
  RESOURCE_EPHEMERAL_STORAGE,
  RESOURCE_MEMORY,
  RESOURCE_PODS,
} from '../resource-names.js';
import { milliValueOf, wholeValueOf } from './quantities.js';

/** A `requests`/`allocatable`/`overhead` map as it appears in objects. */
export type ResourceList = Readonly<Record<string, string | number>>;

export class Resource {
  milliCPU = 0;
  memory = 0;
  ephemeralStorage = 0;
  /** `pods` in allocatable. */
  allowedPodNumber = 0;
  /** Extended resources, hugepages and the like; null while there are none. */
  scalar: Map<string, number> | null = null;

  static fromList(list: ResourceList | undefined | null): Resource {
    const resource = new Resource();
    if (list) resource.addList(list);
    return resource;
  }

  addList(list: ResourceList): void {
    for (const name in list) {
      const text = list[name];
      switch (name) {
        case RESOURCE_CPU:
          this.milliCPU += milliValueOf(text);
          break;
        case RESOURCE_MEMORY:
          this.memory += wholeValueOf(text);
          break;
        case RESOURCE_EPHEMERAL_STORAGE:
          this.ephemeralStorage += wholeValueOf(text);
          break;
        case RESOURCE_PODS:
          this.allowedPodNumber += wholeValueOf(text);
          break;
        default:
          if (isScalarResource(name)) this.addScalar(name, wholeValueOf(text));
      }
    }
  }

  addScalar(name: string, amount: number): void {
    if (this.scalar === null) this.scalar = new Map();
    this.scalar.set(name, (this.scalar.get(name) ?? 0) + amount);
  }

  scalarOf(name: string): number {
    return this.scalar?.get(name) ?? 0;
  }

  add(other: Resource): void {
    this.milliCPU += other.milliCPU;
    this.memory += other.memory;
    this.ephemeralStorage += other.ephemeralStorage;
    this.allowedPodNumber += other.allowedPodNumber;
    if (other.scalar !== null) for (const [name, amount] of other.scalar) this.addScalar(name, amount);
  }

  subtract(other: Resource): void {
    this.milliCPU -= other.milliCPU;
    this.memory -= other.memory;
    this.ephemeralStorage -= other.ephemeralStorage;
    this.allowedPodNumber -= other.allowedPodNumber;
    if (other.scalar !== null) for (const [name, amount] of other.scalar) this.addScalar(name, -amount);
  }

  /** Takes, per resource, the larger of this and `other` (what init containers need at most). */
  setMax(other: Resource): void {
    this.milliCPU = Math.max(this.milliCPU, other.milliCPU);
    this.memory = Math.max(this.memory, other.memory);
    this.ephemeralStorage = Math.max(this.ephemeralStorage, other.ephemeralStorage);
    this.allowedPodNumber = Math.max(this.allowedPodNumber, other.allowedPodNumber);
    if (other.scalar !== null) {
      for (const [name, amount] of other.scalar) {
        if (this.scalar === null) this.scalar = new Map();
        this.scalar.set(name, Math.max(this.scalar.get(name) ?? 0, amount));
      }
    }
  }

  clone(): Resource {
    const copy = new Resource();
    copy.milliCPU = this.milliCPU;
    copy.memory = this.memory;
    copy.ephemeralStorage = this.ephemeralStorage;
    copy.allowedPodNumber = this.allowedPodNumber;
    copy.scalar = this.scalar === null ? null : new Map(this.scalar);
    return copy;
  }

  isZero(): boolean {
    if (this.milliCPU !== 0 || this.memory !== 0 || this.ephemeralStorage !== 0) return false;
    if (this.scalar !== null) for (const amount of this.scalar.values()) if (amount !== 0) return false;
    return true;
  }
}
