export { WorkQueue, type WorkQueueMetrics } from './queue.js';
export {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
} from './rate-limiters.js';
export { RateLimitingQueue } from './rate-limiting-queue.js';
export { TokenBucket } from './token-bucket.js';
