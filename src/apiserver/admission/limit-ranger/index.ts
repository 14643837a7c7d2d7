export { applyLimitRangeDefaults, LIMIT_RANGER_ANNOTATION } from './defaults.js';
export type { LimitRange, LimitRangeItem, LimitType } from './types.js';
export { validateAgainstLimitRanges } from './validate.js';
