// The parts of LimitRange the LimitRanger plugin reads.

import type { KubeObject } from '../../../api/object.js';

export type LimitType = 'Container' | 'Pod' | 'PersistentVolumeClaim' | string;

export interface LimitRangeItem {
  type: LimitType;
  max?: Record<string, unknown>;
  min?: Record<string, unknown>;
  default?: Record<string, unknown>;
  defaultRequest?: Record<string, unknown>;
  maxLimitRequestRatio?: Record<string, unknown>;
}

export interface LimitRange extends KubeObject {
  spec?: { limits?: LimitRangeItem[] };
}
