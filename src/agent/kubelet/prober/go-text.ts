// Durations as Go's time.Duration prints them (they end up in Unhealthy events).

/** Go's time.Duration String for whole milliseconds: `1s`, `500ms`, `1m30s`, `1h0m0s`. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  const secondsText = `${Number.isInteger(seconds) ? seconds : seconds.toFixed(3).replace(/0+$/, '')}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}
