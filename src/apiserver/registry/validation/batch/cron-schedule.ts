// The standard cron parser CronJobs use (robfig/cron v3 ParseStandard): five fields or a
// descriptor, with the library's error messages, which Kubernetes shows verbatim.

interface Bounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DAYS_OF_MONTH: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: {
    jan: 1,
    feb: 2,
    mar: 3,
    apr: 4,
    may: 5,
    jun: 6,
    jul: 7,
    aug: 8,
    sep: 9,
    oct: 10,
    nov: 11,
    dec: 12,
  },
};
const DAYS_OF_WEEK: Bounds = {
  min: 0,
  max: 6,
  names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 },
};
const FIELD_BOUNDS = [MINUTES, HOURS, DAYS_OF_MONTH, MONTHS, DAYS_OF_WEEK];

const DESCRIPTORS = new Set([
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
]);

class CronError extends Error {}

/** Go's strconv.Atoi with its error text. */
function atoi(text: string): number {
  if (!/^[+-]?[0-9]+$/.test(text))
    throw new CronError(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = Number(text);
  if (!Number.isSafeInteger(value) || Math.abs(value) > 2 ** 63 - 1) {
    throw new CronError(`strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`);
  }
  return value;
}

function parseInteger(text: string): number {
  let value: number;
  try {
    value = atoi(text);
  } catch (error) {
    throw new CronError(`failed to parse int from ${text}: ${(error as Error).message}`);
  }
  if (value < 0) throw new CronError(`negative number (${value}) not allowed: ${text}`);
  return value;
}

function parseIntOrName(text: string, bounds: Bounds): number {
  const named = bounds.names?.[text.toLowerCase()];
  return named ?? parseInteger(text);
}

function checkRange(expression: string, bounds: Bounds): void {
  const rangeAndStep = expression.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.min;
    end = bounds.max;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, bounds);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, bounds);
    else throw new CronError(`too many hyphens: ${expression}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseInteger(rangeAndStep[1]!);
    if (lowAndHigh.length === 1) end = bounds.max;
  } else if (rangeAndStep.length > 2) {
    throw new CronError(`too many slashes: ${expression}`);
  }
  if (start < bounds.min)
    throw new CronError(`beginning of range (${start}) below minimum (${bounds.min}): ${expression}`);
  if (end > bounds.max)
    throw new CronError(`end of range (${end}) above maximum (${bounds.max}): ${expression}`);
  if (start > end)
    throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expression}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expression}`);
}

/** Go's time.ParseDuration, enough to accept or reject `@every` values. */
function isGoDuration(text: string): boolean {
  if (text === '0') return true;
  // Micro as U+00B5 or U+03BC, escaped to keep the bundle Latin-1 (see apiextensions/schema/formats.ts).
  return /^[+-]?([0-9]*(\.[0-9]*)?(ns|us|µs|\u03bcs|ms|s|m|h))+$/.test(text) && /[0-9]/.test(text);
}

/** Undefined when the schedule parses; otherwise the cron library's message. */
export function cronScheduleError(schedule: string): string | undefined {
  try {
    checkSchedule(schedule);
    return undefined;
  } catch (error) {
    if (error instanceof CronError) return error.message;
    throw error;
  }
}

function checkSchedule(input: string): void {
  let spec = input;
  if (spec.length === 0) throw new CronError('empty spec string');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const equals = spec.indexOf('=');
    const zone = spec.slice(equals + 1, space < 0 ? undefined : space);
    const problem = timeZoneLoadError(zone);
    if (problem !== undefined) throw new CronError(`provided bad location ${zone}: ${problem}`);
    spec = space < 0 ? '' : spec.slice(space).trim();
  }
  if (spec.startsWith('@')) {
    if (DESCRIPTORS.has(spec)) return;
    if (spec.startsWith('@every ')) {
      const duration = spec.slice('@every '.length);
      if (!isGoDuration(duration)) {
        throw new CronError(
          `failed to parse duration ${spec}: time: invalid duration ${JSON.stringify(duration)}`,
        );
      }
      return;
    }
    throw new CronError(`unrecognized descriptor: ${spec}`);
  }
  const fields = spec.split(/\s+/).filter((field) => field !== '');
  if (fields.length !== 5)
    throw new CronError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  fields.forEach((field, index) => {
    for (const expression of field.split(',').filter((part) => part !== ''))
      checkRange(expression, FIELD_BOUNDS[index]!);
  });
}

/** Go's time.LoadLocation, through the IANA database Node carries: undefined when the zone loads. */
export function timeZoneLoadError(zone: string): string | undefined {
  if (zone === '' || zone === 'UTC' || zone === 'Local') return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return undefined;
  } catch {
    return `unknown time zone ${zone}`;
  }
}
