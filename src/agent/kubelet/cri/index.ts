export {
  CriClient,
  type CriClientOptions,
  CriError,
  type CriOperationObserver,
  DEFAULT_CRI_ENDPOINT,
  isCriNotFound,
} from './client.js';
export type * from './types.js';
