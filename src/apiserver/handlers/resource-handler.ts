import { LARGE_OBJECT_BYTES } from '../../api/large-objects.js';
import { nextTask } from '../../api/next-task.js';
import { isJsonObject, type KubeObject } from '../../api/object.js';
import { deprecationWarning } from '../../api/resources/lookup.js';
import { fieldInvalid } from '../../api/selectors/field-errors.js';
import { goQuote } from '../../api/selectors/go-text.js';
import {
  labelSelectorFromObject,
  parseFieldSelector,
  parseLabelSelector,
} from '../../api/selectors/index.js';
import { SelectorError } from '../../api/selectors/selector-error.js';
import type { Store } from '../../storage/index.js';
import type { FieldManagerThread } from '../apply/field-manager-thread.js';
import {
  checkPatchBody,
  type FieldValidationOptionsKind,
  fieldValidationDirective,
  validateFields,
  validatePatchedFields,
  warningHeader,
} from '../field-validation/index.js';
import { readBody, readObjectBody, readObjectBodyWithSource } from '../http/body.js';
import { negotiate, negotiateObjectOnly } from '../http/negotiate.js';
import { optionalQueryBool, queryBool } from '../http/query-bool.js';
import { sendJson, sendJsonText } from '../http/respond.js';
import type { RequestContext } from '../http/types.js';
import { APPLY_PATCH_YAML, applyPatch, PatchError, patchTypeOf } from '../patch/index.js';
import type { JsonObject } from '../patch/json-value.js';
import type { PatchSchema } from '../patch/schema.js';
import type { CustomResourceServing } from '../registry/custom-resource-serving.js';
import { timestamp } from '../registry/object-meta.js';
import type { DeleteOptions, ListOptions, ResourceStore } from '../registry/resource-store.js';
import type { ResourceRequestInfo } from '../request-info.js';
import {
  badRequest,
  conflict,
  invalid,
  methodNotAllowedOnPath,
  methodNotSupported,
  notFound,
  StatusError,
  success,
} from '../status.js';
import {
  applyConfiguration,
  checkPatchOptions,
  checkWriteOptions,
  decodeApplyBody,
  fieldManagerFor,
  strictApplyBodyError,
  trackedScaleWrite,
  updateManager,
} from './apply-patch.js';
import { listBodyText } from './list-body.js';
import {
  createCheckOffThread,
  offThreadManagedFieldsUpdater,
  storedSizeMeasure,
} from './managed-fields-off-thread.js';
import { isPodConnectSubresource, type PodConnectHandler } from './pod-connect.js';
import type { PodEvictionHandler } from './pod-eviction.js';
import type { ProxyHandler } from './proxy-forward.js';
import { includeObjectParam, loadPrinters, renderList, renderObject } from './render.js';
import { serveWatch, type WatchSettings } from './watch.js';

export interface ResourceHandlerDeps {
  readonly store: Store;
  readonly watch?: WatchSettings;
  /** The strategic-merge-patch schema of a built-in kind; undefined for custom resources. */
  patchSchemaFor(group: string, version: string, kind: string): PatchSchema | undefined;
  /** pods/log: streams the container's log from its node's kubelet (pod-logs.ts). */
  podLogs?(ctx: RequestContext, pods: ResourceStore, namespace: string, name: string): Promise<void>;
  /** pods/eviction: deletes the pod if its disruption budget allows (pod-eviction.ts). */
  podEviction?: PodEvictionHandler;
  /** pods/exec, pods/attach, pods/portforward (pod-connect.ts). */
  podConnect?: PodConnectHandler;
  /** nodes/proxy: forwards the request to the node's kubelet (node-proxy.ts). */
  nodeProxy?: ProxyHandler;
  /** pods/proxy and services/proxy: forward to the pod, or a ready endpoint (pod-proxy.ts, service-proxy.ts). */
  podProxy?: ProxyHandler;
  serviceProxy?: ProxyHandler;
  /** Where a big create's field manager Update runs, off the event loop (none: on it). */
  fieldManagerThread?: FieldManagerThread;
}

/** Serves the REST verbs of one resource and its subresources. */
export class ResourceHandler {
  constructor(private readonly deps: ResourceHandlerDeps) {}

  async handle(ctx: RequestContext, request: ResourceRequestInfo, resources: ResourceStore): Promise<void> {
    const { info } = resources;
    const sub = request.subresource;
    if (sub !== '' && !info.subresources.some((s) => s.name === sub)) throw notFoundPath();
    // Upstream routes `/configmaps/` to the object named "": never to the collection.
    if (request.emptyName) {
      if (request.verb === 'create' && sub === '') throw methodNotAllowedOnPath();
      throw badRequest('name parameter required.');
    }
    // A proxy takes every method, OPTIONS (no verb) too.
    if (sub === 'proxy' && request.verb !== 'watch') {
      const proxies = {
        nodes: this.deps.nodeProxy,
        pods: this.deps.podProxy,
        services: this.deps.serviceProxy,
      };
      const proxy = info.group === '' ? proxies[info.resource as keyof typeof proxies] : undefined;
      if (!proxy) throw notFoundPath();
      return proxy(ctx, resources, request);
    }
    const subInfo = info.subresources.find((s) => s.name === sub);
    if (subInfo && !subInfo.verbs.includes(request.verb as never))
      throw methodNotSupported(resources.groupResource, request.verb);
    if (!subInfo && !info.verbs.includes(request.verb as never))
      throw methodNotSupported(resources.groupResource, request.verb);
    const namespace = info.namespaced ? request.namespace : '';
    if (info.namespaced && namespace === '' && !['list', 'watch'].includes(request.verb))
      throw notFoundPath();
    // A connect subresource never falls through to get or create: a GET must not answer with the Pod.
    if (info.group === '' && info.resource === 'pods' && isPodConnectSubresource(sub)) {
      if (!this.deps.podConnect) throw notFoundPath();
      return this.deps.podConnect(ctx, resources, namespace, request.name, sub);
    }
    const dryRun = dryRunOf(ctx.query);
    const deprecation =
      resources.custom?.deprecationWarning ?? deprecationWarning(info.group, info.version, info.resource);
    if (deprecation) ctx.res.setHeader('warning', warningHeaders([deprecation]).warning!);

    switch (request.verb) {
      case 'get':
        return this.get(ctx, resources, namespace, request.name, sub);
      case 'list':
        return this.list(ctx, resources, namespace);
      case 'watch':
        return serveWatch(
          ctx,
          resources,
          this.deps.store,
          {
            namespace,
            resourceVersion: ctx.query.get('resourceVersion') ?? undefined,
            resourceVersionMatch: ctx.query.get('resourceVersionMatch') ?? undefined,
            sendInitialEvents: queryBool(ctx.query, 'sendInitialEvents'),
            allowBookmarks: queryBool(ctx.query, 'allowWatchBookmarks'),
            timeoutSeconds: numberParam(ctx.query, 'timeoutSeconds'),
            filter: resources.filterFor(...this.selectors(ctx, resources)),
            rendering: negotiate(ctx.headers.accept, true),
            includeObject: includeObjectParam(ctx.query.get('includeObject')),
          },
          this.deps.watch,
        );
      case 'create': {
        if (resources.custom?.terminating()) {
          const error = methodNotSupported(resources.groupResource, 'create');
          error.message = 'create not allowed while custom resource definition is terminating';
          throw error;
        }
        // Bindings and evictions have no Table convertor: only the object itself is served.
        if (sub === 'binding' || sub === 'eviction') negotiateObjectOnly(ctx.headers.accept);
        checkWriteOptions(ctx.query, 'CreateOptions');
        const { body, warnings, bytes } = await this.readChecked(ctx, resources, sub, 'CreateOptions');
        if (sub === 'binding') return this.bind(ctx, resources, namespace, request.name, body, dryRun);
        if (sub === 'eviction' && this.deps.podEviction) {
          this.checkNamespace(body, namespace);
          return this.deps.podEviction(ctx, resources, namespace, request.name, body, dryRun);
        }
        if (sub !== '') throw methodNotSupported(resources.groupResource, 'create');
        this.checkBodyType(body, resources);
        this.checkNamespace(body, namespace);
        const manager = updateManager(ctx.query, ctx.headers['user-agent']);
        const created = await resources.create(namespace, body, {
          dryRun,
          user: ctx.user,
          warnings,
          manageFields: offThreadManagedFieldsUpdater(
            resources,
            '',
            manager,
            bytes,
            this.deps.fieldManagerThread,
          ),
          large: bytes >= LARGE_OBJECT_BYTES,
          measureStoredText: storedSizeMeasure(bytes, this.deps.fieldManagerThread),
          checkCreate: createCheckOffThread(bytes, this.deps.fieldManagerThread),
        });
        return sendJson(ctx.res, 201, created, warningHeaders(warnings));
      }
      case 'update': {
        checkWriteOptions(ctx.query, 'UpdateOptions');
        const { body, warnings, bytes } = await this.readChecked(ctx, resources, sub, 'UpdateOptions');
        if (sub === 'scale') {
          const manager = updateManager(ctx.query, ctx.headers['user-agent']);
          return this.updateScale(ctx, resources, namespace, request.name, () => body, dryRun, { manager });
        }
        this.checkBodyType(body, resources);
        this.checkNamespace(body, namespace);
        const manager = updateManager(ctx.query, ctx.headers['user-agent']);
        const { object, created } = await resources.update(namespace, request.name, body, {
          subresource: sub,
          manageFields: offThreadManagedFieldsUpdater(
            resources,
            sub,
            manager,
            bytes,
            this.deps.fieldManagerThread,
          ),
          dryRun,
          user: ctx.user,
          warnings,
        });
        return sendJson(ctx.res, created ? 201 : 200, object, warningHeaders(warnings));
      }
      case 'patch':
        return this.patch(ctx, resources, namespace, request, dryRun);
      case 'delete': {
        const options = await this.deleteOptions(ctx);
        const outcome = await resources.delete(namespace, request.name, {
          ...options,
          dryRun: dryRun || options.dryRun === true,
          user: ctx.user,
        });
        return sendJson(ctx.res, 200, outcome.object);
      }
      case 'deletecollection': {
        const options = await this.deleteOptions(ctx);
        const deleted = await resources.deleteCollection(namespace, this.listOptions(ctx, resources), {
          ...options,
          dryRun: dryRun || options.dryRun === true,
          user: ctx.user,
        });
        return sendJson(ctx.res, 200, {
          kind: `${info.kind}List`,
          apiVersion: info.group === '' ? info.version : `${info.group}/${info.version}`,
          metadata: { resourceVersion: String(this.deps.store.currentRevision()) },
          items: deleted,
        });
      }
    }
  }

  private async get(
    ctx: RequestContext,
    resources: ResourceStore,
    namespace: string,
    name: string,
    sub: string,
  ) {
    if (sub === 'scale')
      return sendJson(ctx.res, 200, scaleOf(resources, await resources.get(namespace, name)));
    if (sub === 'log') {
      if (!this.deps.podLogs) throw notFoundPath();
      return this.deps.podLogs(ctx, resources, namespace, name);
    }
    const rendering = negotiate(ctx.headers.accept, false);
    if (rendering === 'object') return sendJsonText(ctx.res, 200, await resources.getText(namespace, name));
    const object = await resources.get(namespace, name);
    await loadPrinters();
    const includeObject = includeObjectParam(ctx.query.get('includeObject'));
    return sendJson(
      ctx.res,
      200,
      renderObject(rendering, resources.info, object, includeObject, false, resources.custom?.printer),
    );
  }

  private async list(ctx: RequestContext, resources: ResourceStore, namespace: string) {
    const rendering = negotiate(ctx.headers.accept, true);
    const page = await resources.list(namespace, this.listOptions(ctx, resources));
    if (rendering === 'object') {
      return sendJsonText(
        ctx.res,
        200,
        listBodyText(resources.info, page.items, page.revision, page.continue),
      );
    }
    await loadPrinters();
    const metadata = {
      resourceVersion: String(page.revision),
      ...(page.continue ? { continue: page.continue } : {}),
    };
    const includeObject = includeObjectParam(ctx.query.get('includeObject'));
    return sendJson(
      ctx.res,
      200,
      renderList(rendering, resources.info, page.items, metadata, includeObject, resources.custom?.printer),
    );
  }

  private listOptions(ctx: RequestContext, resources: ResourceStore): ListOptions {
    const [labelSelector, fieldSelector] = this.selectors(ctx, resources);
    const match = ctx.query.get('resourceVersionMatch');
    if (match !== null && match !== 'Exact' && match !== 'NotOlderThan') {
      throw badRequest(
        `resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`,
      );
    }
    return {
      labelSelector,
      fieldSelector,
      limit: numberParam(ctx.query, 'limit'),
      continue: ctx.query.get('continue') || undefined,
      resourceVersion: ctx.query.get('resourceVersion') ?? undefined,
      resourceVersionMatch: match ?? undefined,
    };
  }

  private selectors(ctx: RequestContext, resources: ResourceStore) {
    try {
      const labelSelector = parseLabelSelector(ctx.query.get('labelSelector') ?? '');
      const fieldSelector = parseFieldSelector(ctx.query.get('fieldSelector') ?? '');
      const supported = new Set(Object.keys(resources.fieldValues({ metadata: {} })));
      for (const requirement of fieldSelector.requirements()) {
        if (!supported.has(requirement.field)) {
          throw badRequest(resources.unsupportedFieldLabel(requirement.field));
        }
      }
      return [labelSelector, fieldSelector] as const;
    } catch (error) {
      if (error instanceof SelectorError) throw badRequest(error.message);
      throw error;
    }
  }

  private async patch(
    ctx: RequestContext,
    resources: ResourceStore,
    namespace: string,
    request: ResourceRequestInfo,
    dryRun: boolean,
  ) {
    const { info } = resources;
    // A scale subresource serves autoscaling/v1 Scale whatever the group of its parent.
    const schema =
      request.subresource === 'scale'
        ? this.deps.patchSchemaFor('autoscaling', 'v1', 'Scale')
        : this.deps.patchSchemaFor(info.group, info.version, info.kind);
    const contentType = ctx.headers['content-type'];
    const isApply = contentType?.split(';')[0] === APPLY_PATCH_YAML;
    if (!isApply) {
      try {
        patchTypeOf(contentType, schema !== undefined);
      } catch (error) {
        throw asStatusError(error);
      }
    }
    checkPatchOptions(ctx.query, isApply);
    if (isApply && request.subresource === 'scale') {
      const configuration = decodeApplyBody(await readBody(ctx.req));
      const apply = { configuration, force: queryBool(ctx.query, 'force') };
      const manager = ctx.query.get('fieldManager') ?? '';
      return this.updateScale(ctx, resources, namespace, request.name, (s) => s, dryRun, { manager, apply });
    }
    if (isApply) return this.apply(ctx, resources, namespace, request, dryRun);
    const mode = fieldValidationDirective(ctx.query.get('fieldValidation'), 'PatchOptions');
    const body = await readBody(ctx.req);
    const texts: string[] = [];
    const gvk = this.bodyKind(resources, request.subresource);
    // `owned`: `current` is this request's own copy (guaranteedUpdate decodes one per attempt).
    const patchWith = (current: KubeObject, owned = false): KubeObject => {
      let patched: unknown;
      try {
        const check = checkPatchBody(patchTypeOf(contentType, schema !== undefined), body, mode);
        patched = applyPatch(contentType, current, body, schema, owned);
        texts.splice(0, texts.length, ...validatePatchedFields(check, patched, gvk));
        if (resources.custom && request.subresource !== 'scale' && isJsonObject(patched))
          texts.push(...unknownFieldWarnings(resources.custom, patched as KubeObject, mode));
      } catch (error) {
        throw asStatusError(error);
      }
      if (!isJsonObject(patched)) throw badRequest('the patch did not produce an object');
      return patched as KubeObject;
    };
    if (request.subresource === 'scale') {
      const manager = updateManager(ctx.query, ctx.headers['user-agent']);
      return this.updateScale(ctx, resources, namespace, request.name, (scale) => patchWith(scale), dryRun, {
        manager,
      });
    }
    const updated = await resources.guaranteedUpdate(
      namespace,
      request.name,
      (current) => {
        const patched = patchWith(current, true);
        // A resourceVersion in the patch pins the update to that version.
        return patched;
      },
      {
        subresource: request.subresource,
        // The patch is small; the live object's size decides where its field manager runs.
        manageFields: offThreadManagedFieldsUpdater(
          resources,
          request.subresource,
          updateManager(ctx.query, ctx.headers['user-agent']),
          0,
          this.deps.fieldManagerThread,
        ),
        dryRun,
        expectedVersion: pinnedVersion(body),
        user: ctx.user,
        warnings: texts,
      },
    );
    return sendJson(ctx.res, 200, updated, warningHeaders(texts));
  }

  /** PATCH application/apply-patch+yaml: server-side apply, creating the object when absent. */
  private async apply(
    ctx: RequestContext,
    resources: ResourceStore,
    namespace: string,
    request: ResourceRequestInfo,
    dryRun: boolean,
  ) {
    const sub = request.subresource;
    const manager = ctx.query.get('fieldManager') ?? '';
    const force = queryBool(ctx.query, 'force');
    const mode = fieldValidationDirective(ctx.query.get('fieldValidation'), 'PatchOptions');
    const body = await readBody(ctx.req);
    const configuration = decodeApplyBody(body);
    // applyPatcher decodes leniently, applies, then decodes strictly for Strict and Warn.
    const strictError = mode === 'Ignore' ? undefined : strictApplyBodyError(body);
    const fieldManager = fieldManagerFor(resources, sub);
    const { info } = resources;
    const kindText = `${info.group}/${info.version}, Kind=${info.kind}`;
    const withName = (object: KubeObject): KubeObject => {
      const name = object.metadata?.name;
      if (name !== undefined && name !== request.name) {
        throw badRequest(
          `the name of the object (${name}) does not match the name on the URL (${request.name})`,
        );
      }
      this.checkNamespace(object, namespace);
      if (strictError && mode === 'Strict') throw badRequest(`error strict decoding YAML: ${strictError}`);
      return object;
    };
    const options = { subresource: sub, dryRun, user: ctx.user, warnings: [] as string[] };
    if (strictError && mode === 'Warn') options.warnings.push(strictError);
    const exists = await resources
      .get(namespace, request.name)
      .then(() => true)
      .catch((error: unknown) => {
        if (error instanceof StatusError && error.code === 404) return false;
        throw error;
      });
    if (!exists) {
      if (sub !== '') throw notFound(resources.groupResource, request.name);
      const empty: KubeObject = { apiVersion: configuration.apiVersion as string, kind: info.kind };
      const created = withName(
        applyConfiguration(fieldManager, empty, configuration, manager, force, kindText),
      );
      created.metadata = { ...created.metadata, name: request.name };
      const object = await resources.create(namespace, created, options);
      return sendJson(ctx.res, 201, object, warningHeaders(options.warnings));
    }
    const updated = await resources.guaranteedUpdate(
      namespace,
      request.name,
      (current) =>
        withName(applyConfiguration(fieldManager, current, configuration, manager, force, kindText)),
      options,
    );
    return sendJson(ctx.res, 200, updated, warningHeaders(options.warnings));
  }

  private async updateScale(
    ctx: RequestContext,
    resources: ResourceStore,
    namespace: string,
    name: string,
    desiredScale: (current: KubeObject) => KubeObject,
    dryRun: boolean,
    track: ScaleWriteTracking,
  ) {
    const fieldManager = fieldManagerFor(resources, 'scale');
    const write = (currentScale: KubeObject): KubeObject => {
      const { apply, manager } = track;
      if (apply) {
        const kindText = 'autoscaling/v1, Kind=Scale';
        return applyConfiguration(
          fieldManager,
          currentScale,
          apply.configuration,
          manager,
          apply.force,
          kindText,
        );
      }
      const next = desiredScale(currentScale);
      try {
        return fieldManager.update(currentScale as JsonObject, next as JsonObject, manager) as KubeObject;
      } catch {
        // UpdateNoErrors: managed fields that cannot be computed never fail the write.
        const { managedFields: _dropped, ...metadata } = next.metadata ?? {};
        return { ...next, metadata };
      }
    };
    const updated = await resources.guaranteedUpdate(
      namespace,
      name,
      (current) => {
        const tracked = trackedScaleWrite(resources, current, scaleOf(resources, current), write);
        const scale = tracked.scale;
        const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas ?? 0;
        if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
          throw badRequest(`spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be an integer`);
        }
        if (replicas < 0) {
          throw invalid('autoscaling', 'Scale', name, [
            fieldInvalid('spec.replicas', replicas, 'must be greater than or equal to 0'),
          ]);
        }
        const uid = scale.metadata?.uid;
        if (uid && uid !== current.metadata?.uid) {
          throw conflict(
            { group: resources.groupResource.group, resource: `${resources.groupResource.resource}/scale` },
            name,
            `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata?.uid}`,
          );
        }
        // The scale's resourceVersion (if any) is the parent's: a stale one is a conflict.
        const metadata = { ...current.metadata, resourceVersion: scale.metadata?.resourceVersion };
        if (tracked.managedFields) metadata.managedFields = tracked.managedFields;
        else delete metadata.managedFields;
        const custom = resources.custom?.scale;
        if (custom) return custom.withReplicas({ ...current, metadata }, replicas);
        return { ...current, metadata, spec: { ...(current.spec as object), replicas } };
      },
      { dryRun, subresource: resources.custom?.scale ? 'scale' : undefined },
    );
    return sendJson(ctx.res, 200, scaleOf(resources, updated));
  }

  /** pods/binding: assigns the pod to a node, once (the scheduler's write). */
  private async bind(
    ctx: RequestContext,
    resources: ResourceStore,
    namespace: string,
    name: string,
    binding: KubeObject,
    dryRun: boolean,
  ) {
    const target = (binding.target ?? {}) as { kind?: string; name?: string };
    if (!target.name) throw badRequest('Binding.target.name: Required value');
    if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node') {
      throw badRequest(`binding target kind must be Node, not ${target.kind}`);
    }
    await resources.guaranteedUpdate(
      namespace,
      name,
      (pod) => {
        const spec = (pod.spec ?? {}) as { nodeName?: string };
        if (pod.metadata?.deletionTimestamp)
          throw conflict(resources.groupResource, name, 'pod is being deleted, cannot be assigned to a host');
        if (spec.nodeName) {
          throw conflict(
            resources.groupResource,
            name,
            `pod ${name} is already assigned to node "${spec.nodeName}"`,
          );
        }
        const status = (pod.status ?? {}) as { conditions?: { type: string }[] };
        const conditions = (status.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
        conditions.push({
          type: 'PodScheduled',
          status: 'True',
          lastProbeTime: null,
          lastTransitionTime: timestamp(),
        } as never);
        return { ...pod, spec: { ...spec, nodeName: target.name }, status: { ...status, conditions } };
      },
      { dryRun, subresource: 'binding' },
    );
    return sendJson(ctx.res, 201, success());
  }

  /**
   * Reads a create/update body and runs server-side field validation on it, as
   * kube-apiserver does while decoding: unknown and duplicate fields are a 400 under Strict,
   * Warning headers under Warn (the default), nothing under Ignore.
   */
  private async readChecked(
    ctx: RequestContext,
    resources: ResourceStore,
    sub: string,
    optionsKind: FieldValidationOptionsKind,
  ): Promise<{ body: KubeObject; warnings: string[]; bytes: number }> {
    const mode = fieldValidationDirective(ctx.query.get('fieldValidation'), optionsKind);
    const kind = this.bodyKind(resources, sub);
    const { object, json, bytes } = await readObjectBodyWithSource(ctx.req, kind);
    // Decoding a large body and scanning it for unknown fields take tens of ms each: two tasks.
    if (bytes >= LARGE_OBJECT_BYTES) await nextTask();
    const texts = json ? validateFields(json, kind, mode) : [];
    if (resources.custom && sub !== 'scale')
      texts.push(...unknownFieldWarnings(resources.custom, object, mode));
    return { body: object, warnings: texts, bytes };
  }

  /** The kind a body of this endpoint decodes to (protobuf bodies name theirs, or take this one). */
  private bodyKind(
    resources: ResourceStore,
    subresource: string,
  ): { group: string; version: string; kind: string } {
    const { info } = resources;
    const sub = info.subresources.find((s) => s.name === subresource);
    if (sub && sub.kind !== info.kind)
      return { group: sub.group ?? info.group, version: sub.version ?? info.version, kind: sub.kind };
    return { group: info.group, version: info.version, kind: info.kind };
  }

  private async deleteOptions(ctx: RequestContext): Promise<DeleteOptions> {
    const fromBody = await readObjectBody(
      ctx.req,
      { group: 'meta.k8s.io', version: 'v1', kind: 'DeleteOptions' },
      { optional: true },
    );
    const grace =
      numberParam(ctx.query, 'gracePeriodSeconds') ?? (fromBody.gracePeriodSeconds as number | undefined);
    let policy = (ctx.query.get('propagationPolicy') ?? fromBody.propagationPolicy) as string | undefined;
    const orphan =
      optionalQueryBool(ctx.query, 'orphanDependents') ?? (fromBody.orphanDependents as boolean | undefined);
    if (policy === undefined && orphan !== undefined && orphan !== null) {
      policy = orphan === true ? 'Orphan' : 'Background';
    }
    if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy)) {
      throw badRequest(
        `propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
      );
    }
    // client-go sends dryRun in the DeleteOptions body, kubectl in the query: either counts.
    const bodyDryRun = fromBody.dryRun;
    if (bodyDryRun !== undefined && bodyDryRun !== null) {
      const values = Array.isArray(bodyDryRun) ? bodyDryRun : [bodyDryRun];
      for (const value of values) {
        if (value !== 'All')
          throw badRequest(`dryRun: Unsupported value: "${value}": supported values: "All"`);
      }
    }
    return {
      gracePeriodSeconds: grace,
      propagationPolicy: policy as DeleteOptions['propagationPolicy'],
      preconditions: fromBody.preconditions as DeleteOptions['preconditions'],
      ...(Array.isArray(bodyDryRun) && bodyDryRun.length > 0 ? { dryRun: true } : {}),
    };
  }

  private checkBodyType(body: KubeObject, resources: ResourceStore): void {
    const { info } = resources;
    const expected = info.group === '' ? info.version : `${info.group}/${info.version}`;
    if (body.apiVersion !== undefined && body.apiVersion !== expected) {
      throw badRequest(
        `the API version in the data (${body.apiVersion}) does not match the expected API version (${expected})`,
      );
    }
    if (body.kind !== undefined && body.kind !== info.kind) {
      throw badRequest(`the kind in the data (${body.kind}) does not match the expected kind (${info.kind})`);
    }
    body.apiVersion = expected;
    body.kind = info.kind;
  }

  private checkNamespace(body: KubeObject, namespace: string): void {
    const given = body.metadata?.namespace;
    if (namespace !== '' && given !== undefined && given !== '' && given !== namespace) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
  }
}

/** `Warning` response headers for field-validation warnings (none when there are none). */
function warningHeaders(texts: readonly string[]): Record<string, string[]> {
  if (texts.length === 0) return {};
  // Deprecated resources carry their warning on every response (set first in handle()).
  // Node writes header values as latin1: pass UTF-8 bytes through unchanged.
  return { warning: warningHeader(texts).map((value) => Buffer.from(value, 'utf8').toString('latin1')) };
}

function notFoundPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

function dryRunOf(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  for (const value of values) {
    if (value !== 'All') throw badRequest(`dryRun: Unsupported value: "${value}": supported values: "All"`);
  }
  return values.length > 0;
}

function numberParam(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (!/^-?[0-9]+$/.test(value)) throw badRequest(`invalid value for ${name}: ${JSON.stringify(value)}`);
  // The parameters are int64 (strconv.ParseInt); past 2^53 the exact value cannot matter here.
  const parsed = BigInt(value);
  if (parsed > INT64_MAX || parsed < -INT64_MAX - 1n)
    throw badRequest(`strconv.ParseInt: parsing ${goQuote(value)}: value out of range`);
  return Math.max(Math.min(Number(value), Number.MAX_SAFE_INTEGER), Number.MIN_SAFE_INTEGER);
}

const INT64_MAX = 2n ** 63n - 1n;

function pinnedVersion(body: Buffer): string | undefined {
  try {
    const patch = JSON.parse(body.toString('utf8')) as { metadata?: { resourceVersion?: unknown } };
    const rv = isJsonObject(patch) ? patch.metadata?.resourceVersion : undefined;
    return typeof rv === 'string' && rv !== '' ? rv : undefined;
  } catch {
    return undefined;
  }
}

function asStatusError(error: unknown): unknown {
  if (error instanceof PatchError) return new StatusError(error.code, error.reason, error.message);
  return error;
}

/** Who writes through the scale subresource, and the apply configuration when it is an apply. */
interface ScaleWriteTracking {
  readonly manager: string;
  readonly apply?: { readonly configuration: JsonObject; readonly force: boolean };
}

/** The Scale of a custom resource (from its CRD's paths) or of a built-in scalable object. */
function scaleOf(resources: ResourceStore, object: KubeObject): KubeObject {
  return resources.custom?.scale ? resources.custom.scale.toScale(object) : toScale(object);
}

/**
 * fieldValidation for custom resources: the fields the schema prunes are a 400 under Strict and
 * warnings under Warn, with the texts of kube-apiserver's unstructured decoding.
 */
function unknownFieldWarnings(custom: CustomResourceServing, object: KubeObject, mode: string): string[] {
  if (mode === 'Ignore') return [];
  const unknown = custom.unknownFields(object).map((path) => `unknown field "${path}"`);
  if (unknown.length === 0 || mode !== 'Strict') return unknown;
  throw badRequest(`strict decoding error: ${unknown.join(', ')}`);
}

/** The autoscaling/v1 Scale view of a scalable object. */
function toScale(object: KubeObject): KubeObject {
  const meta = object.metadata ?? {};
  const spec = (object.spec ?? {}) as { replicas?: number; selector?: unknown };
  const status = (object.status ?? {}) as { replicas?: number };
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: spec.replicas ?? 0 },
    status: {
      replicas: status.replicas ?? 0,
      ...(selectorText(spec.selector) ? { selector: selectorText(spec.selector) } : {}),
    },
  };
}

/** A scale's selector as a string: from a LabelSelector (apps) or a plain map (replication controllers). */
function selectorText(selector: unknown): string {
  if (!isJsonObject(selector)) return '';
  try {
    if ('matchLabels' in selector || 'matchExpressions' in selector) {
      return labelSelectorFromObject(selector as never).toString();
    }
    return labelSelectorFromObject({ matchLabels: selector as Record<string, string> }).toString();
  } catch {
    return '';
  }
}

export { notFound };
