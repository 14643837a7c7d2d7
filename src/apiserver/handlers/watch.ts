import type { KubeObject } from '../../api/object.js';
import { CompactedError, type Store, type WatchEvent } from '../../storage/index.js';
import type { Rendering } from '../http/negotiate.js';
import { type RequestContext, responseStream } from '../http/types.js';
import type { IncludeObjectPolicy } from '../printers/types.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { parseResourceVersion } from '../registry/resource-version.js';
import { badRequest, StatusError, tooOldResourceVersion } from '../status.js';
import { apiVersionOf } from './list-body.js';
import { loadPrinters, renderObject } from './render.js';

const MAX_REVISION = BigInt(Number.MAX_SAFE_INTEGER);

export interface WatchRequest {
  readonly namespace: string;
  readonly resourceVersion: string | undefined;
  readonly resourceVersionMatch: string | undefined;
  readonly sendInitialEvents: boolean;
  readonly allowBookmarks: boolean;
  readonly timeoutSeconds: number | undefined;
  readonly filter: ((object: KubeObject) => boolean) | undefined;
  /** 'Table' for `kubectl get -w`: each event's object becomes a one-row Table. */
  readonly rendering: Rendering;
  readonly includeObject: IncludeObjectPolicy;
}

export interface WatchSettings {
  /** Watches without timeoutSeconds end after this, randomized up to twice as long, as kube-apiserver does. */
  readonly minRequestTimeoutSeconds: number;
  /** How often a watch that asked for bookmarks gets one. */
  readonly bookmarkIntervalMs: number;
}

/** kube-apiserver's defaults: --min-request-timeout 1800 s; bookmarks about once a minute. */
export const DEFAULT_WATCH_SETTINGS: WatchSettings = {
  minRequestTimeoutSeconds: 1800,
  bookmarkIntervalMs: 60_000,
};

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * Each store event is encoded once per event type and served version, and shared by every
 * watcher that sends it: the text is computed lazily and cached on the event.
 */
const encoded = new WeakMap<WatchEvent, Map<string, string>>();

/** The event's object as the watched endpoint serves it. */
function eventObjectText(event: WatchEvent, resources: ResourceStore): string {
  return resources.servedText(event.type === 'delete' ? event.prevValue! : event.value!, event.revision);
}

function encodeEvent(event: WatchEvent, type: EventType, resources: ResourceStore): string {
  let cache = encoded.get(event);
  if (!cache) {
    cache = new Map();
    encoded.set(event, cache);
  }
  const key = `${type} ${resources.info.group}/${resources.info.version}`;
  let line = cache.get(key);
  if (line === undefined) {
    line = `{"type":"${type}","object":${eventObjectText(event, resources)}}\n`;
    cache.set(key, line);
  }
  return line;
}

/** The watch event type a filtered watcher sees for one store event, if any. */
function eventTypeFor(
  event: WatchEvent,
  filter: WatchRequest['filter'],
  resources: ResourceStore,
): EventType | undefined {
  if (!filter) return event.type === 'create' ? 'ADDED' : event.type === 'update' ? 'MODIFIED' : 'DELETED';
  const matchedBefore =
    event.prevValue !== undefined && filter(resources.servedObject(event.prevValue, event.prevRevision ?? 0));
  if (event.type === 'delete') return matchedBefore ? 'DELETED' : undefined;
  const matchesNow = filter(resources.servedObject(event.value!, event.revision));
  if (matchesNow) return matchedBefore ? 'MODIFIED' : 'ADDED';
  // An object that stops matching leaves this watcher's view: a DELETED with its new state.
  return matchedBefore ? 'DELETED' : undefined;
}

function statusEvent(error: StatusError): string {
  return `${JSON.stringify({ type: 'ERROR', object: error.toStatus() })}\n`;
}

/**
 * Serves a watch: optional initial state as ADDED events, then every change after the
 * starting revision as chunked JSON, with bookmarks when asked for, until the timeout or
 * the client goes away.
 */
export async function serveWatch(
  ctx: RequestContext,
  resources: ResourceStore,
  store: Store,
  request: WatchRequest,
  settings: WatchSettings = DEFAULT_WATCH_SETTINGS,
): Promise<void> {
  const res = responseStream(ctx.res);
  const info = resources.info;
  const rv = request.resourceVersion;
  const initialEvents = request.sendInitialEvents || rv === undefined || rv === '' || rv === '0';
  if (request.sendInitialEvents && request.resourceVersionMatch !== 'NotOlderThan') {
    throw badRequest('sendInitialEvents is forbidden for watch unless resourceVersionMatch=NotOlderThan');
  }
  let startRevision: number;
  const initialObjects: string[] = [];
  if (initialEvents) {
    const page = await resources.list(request.namespace, {});
    startRevision = page.revision;
    for (const text of page.items) {
      if (request.filter && !request.filter(JSON.parse(text) as KubeObject)) continue;
      initialObjects.push(text);
    }
  } else {
    // A revision past the largest safe integer is far in the future: no event will reach it.
    // "00" parses to 0 too: from now on, without the initial events the literal "0" asks for.
    const requested = parseResourceVersion(rv);
    if (requested === 0n) startRevision = store.currentRevision();
    else startRevision = requested > MAX_REVISION ? Number.MAX_SAFE_INTEGER : Number(requested);
  }

  if (request.rendering !== 'object') await loadPrinters();
  // Plain JSON events are encoded once and shared; other renderings are per watcher.
  let headersSent = false;
  const render = (type: string, text: string): string => {
    if (request.rendering === 'object') return `{"type":"${type}","object":${text}}\n`;
    const object = renderObject(
      request.rendering,
      info,
      JSON.parse(text) as KubeObject,
      request.includeObject,
      headersSent,
      resources.custom?.printer,
    );
    headersSent = true;
    return `${JSON.stringify({ type, object })}\n`;
  };
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
  const bookmark = (revision: number, annotations?: Record<string, string>): string =>
    `${JSON.stringify({
      type: 'BOOKMARK',
      object: {
        kind: info.kind,
        apiVersion: apiVersionOf(info),
        metadata: { resourceVersion: String(revision), ...(annotations ? { annotations } : {}) },
      },
    })}\n`;

  let watch: ReturnType<Store['watch']>;
  try {
    watch = store.watch(resources.prefix(request.namespace), { afterRevision: startRevision, prefix: true });
  } catch (error) {
    if (!(error instanceof CompactedError)) throw error;
    res.end(statusEvent(tooOldResourceVersion(startRevision, error.compactedRevision)));
    return;
  }
  let initial = initialObjects.map((text) => render('ADDED', text)).join('');
  if (request.sendInitialEvents && request.allowBookmarks) {
    initial += bookmark(startRevision, { 'k8s.io/initial-events-end': 'true' });
  }
  if (initial !== '') res.write(initial);
  // An empty watch still answers at once, as kube-apiserver flushes after its headers: HTTP/1.1
  // clients (client-node) wait for the response before they count the watch as started.
  else (ctx.res as { flushHeaders?: () => void }).flushHeaders?.();
  ctx.watchInitialized?.();

  const timeoutMs =
    request.timeoutSeconds !== undefined
      ? request.timeoutSeconds * 1000
      : settings.minRequestTimeoutSeconds * 1000 * (1 + Math.random());
  let lastRevision = startRevision;
  const timer = setTimeout(() => watch.close(), timeoutMs);
  const bookmarks = request.allowBookmarks
    ? setInterval(() => {
        if (lastRevision < store.currentRevision()) lastRevision = store.currentRevision();
        res.write(bookmark(lastRevision));
      }, settings.bookmarkIntervalMs)
    : undefined;
  const onClose = (): void => watch.close();
  ctx.req.on('close', onClose);
  try {
    for await (const stored of watch) {
      // Custom resources with a conversion webhook: the batch is converted in one review.
      const batch = await resources.servedEvents(stored);
      let chunk = '';
      for (const event of batch) {
        const type = eventTypeFor(event, request.filter, resources);
        if (type === undefined) continue;
        chunk +=
          request.rendering === 'object'
            ? encodeEvent(event, type, resources)
            : render(type, eventObjectText(event, resources));
      }
      lastRevision = batch[batch.length - 1]!.revision;
      if (chunk !== '' && !res.write(chunk)) {
        // Slow client: wait for the socket instead of buffering; the store keeps our place.
        await new Promise<void>((resolve) => {
          const done = (): void => {
            res.off('drain', done);
            ctx.req.off('close', done);
            resolve();
          };
          res.once('drain', done);
          ctx.req.once('close', done);
        });
      }
    }
  } catch (error) {
    if (error instanceof CompactedError) {
      res.write(statusEvent(tooOldResourceVersion(watch.lastRevision, error.compactedRevision)));
    } else if (error instanceof StatusError) {
      res.write(statusEvent(error));
    }
  } finally {
    clearTimeout(timer);
    if (bookmarks) clearInterval(bookmarks);
    ctx.req.off('close', onClose);
    watch.close();
    if (!res.writableEnded) res.end();
  }
}
