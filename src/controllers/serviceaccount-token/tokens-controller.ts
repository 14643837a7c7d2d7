// The tokens controller: a `kubernetes.io/service-account-token` Secret naming a ServiceAccount
// (annotation `kubernetes.io/service-account.name`) gets a long-lived legacy token for it, the
// cluster CA and the namespace, and the account's UID annotation; token Secrets whose account is
// gone are deleted, and a deleted Secret is dropped from its account's `secrets`. It runs with the
// manager's own credentials, as service-account tokens cannot depend on a service account.
import type { Secret, ServiceAccount } from '../../api/types/core-v1.generated.js';
import { Controller, objectOf } from '../../client/controller.js';
import { SECRETS, SERVICE_ACCOUNTS } from '../../client/resources.js';
import { isConflict, isNotFound } from '../../client/rest/index.js';
import type { Client, ResourceClient } from '../../client/types.js';
import { issueLegacyServiceAccountToken } from '../../pki/service-account-tokens.js';
import {
  type ControllerContext,
  type ControllerDescriptor,
  IDLE_CONTROLLER,
  type RunnableController,
} from '../context.js';

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
export const SERVICE_ACCOUNT_UID_ANNOTATION = 'kubernetes.io/service-account.uid';
/** The Secret data keys the controller fills in. */
export const TOKEN_KEY = 'token';
export const CA_KEY = 'ca.crt';
export const NAMESPACE_KEY = 'namespace';

/** `--concurrent-serviceaccount-token-syncs`' default. */
const WORKERS = 5;
/** The controller's own retry limit. */
const MAX_RETRIES = 10;
/** Retries of dropping a deleted Secret from its account on conflicts (RemoveTokenBackoff's steps). */
const REMOVE_REFERENCE_ATTEMPTS = 10;

/** A service account as queued: deleted ones are still known by name and UID. */
type AccountKey = [namespace: string, name: string, uid: string];
/** A token Secret as queued, with the account it names. */
type SecretKey = [namespace: string, name: string, uid: string, account: string, accountUid: string];

export interface TokensControllerOptions {
  readonly signingKeyPem: string;
  readonly rootCaPem: string;
}

export class TokensController implements RunnableController {
  readonly accountsController: Controller;
  readonly secretsController: Controller;
  private readonly secrets: ResourceClient<Secret>;
  private readonly accounts: ResourceClient<ServiceAccount>;

  constructor(
    private readonly context: ControllerContext,
    private readonly options: TokensControllerOptions,
    client: Client = context.rootClient,
  ) {
    this.secrets = client.resource<Secret>(SECRETS);
    this.accounts = client.resource<ServiceAccount>(SERVICE_ACCOUNTS);
    this.accountsController = new Controller({
      name: 'serviceaccount-tokens-service',
      sync: (key) => this.syncServiceAccount(JSON.parse(key) as AccountKey),
      workers: WORKERS,
      maxRetries: MAX_RETRIES,
    });
    const accountKey = (account: ServiceAccount): string => {
      const { namespace = '', name = '', uid = '' } = account.metadata ?? {};
      return JSON.stringify([namespace, name, uid] satisfies AccountKey);
    };
    const secretKey = (secret: Secret): string | undefined => {
      if (secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE) return undefined;
      const { namespace = '', name = '', uid = '', annotations = {} } = secret.metadata ?? {};
      const account = annotations[SERVICE_ACCOUNT_NAME_ANNOTATION] ?? '';
      const accountUid = annotations[SERVICE_ACCOUNT_UID_ANNOTATION] ?? '';
      return JSON.stringify([namespace, name, uid, account, accountUid] satisfies SecretKey);
    };
    this.accountsController.watch(
      context.informers.informerFor<ServiceAccount>(SERVICE_ACCOUNTS),
      accountKey,
    );
    // Only the new state of a changed Secret is synced: the old one's key would name a stale UID.
    const secrets = context.informers.informerFor<Secret>(SECRETS);
    const registration = secrets.addEventHandler({
      onAdd: (secret) => this.enqueueSecret(secretKey(secret)),
      onUpdate: (_old, secret) => this.enqueueSecret(secretKey(secret)),
      onDelete: (deleted) => this.enqueueSecret(secretKey(objectOf(deleted))),
    });
    this.secretsController = new Controller({
      name: 'serviceaccount-tokens-secret',
      sync: (key) => this.syncSecret(JSON.parse(key) as SecretKey),
      workers: WORKERS,
      maxRetries: MAX_RETRIES,
      waitFor: [registration],
    });
  }

  private enqueueSecret(key: string | undefined): void {
    if (key !== undefined) this.secretsController.enqueueKey(key);
  }

  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.accountsController.run(signal), this.secretsController.run(signal)]);
  }

  /** A deleted account takes its token Secrets with it. */
  async syncServiceAccount([namespace, name, uid]: AccountKey): Promise<void> {
    if (!namespace || !name || !uid) return;
    if (this.cachedAccount(namespace, name, uid)) return;
    const failures: string[] = [];
    for (const secret of this.tokenSecretsOf(namespace, name, uid)) {
      try {
        await this.deleteToken(namespace, secret.metadata?.name ?? '', secret.metadata?.uid ?? '');
      } catch (error) {
        failures.push(messageOf(error));
      }
    }
    if (failures.length > 0) throw new Error(failures.join(', '));
  }

  async syncSecret([namespace, name, uid, account, accountUid]: SecretKey): Promise<void> {
    if (!namespace || !name || !uid || !account) return;
    const secret = this.cachedSecret(namespace, name, uid);
    if (!secret) {
      if (this.cachedAccount(namespace, account, accountUid)) {
        await this.removeSecretReference(namespace, account, accountUid, name);
      }
      return;
    }
    const serviceAccount = await this.liveAccount(namespace, account, accountUid);
    if (!serviceAccount) {
      await this.deleteToken(namespace, name, uid);
      return;
    }
    await this.generateTokenIfNeeded(serviceAccount, secret);
  }

  /** What a token Secret lacks: the current CA, its namespace, a token. */
  private updatesNeeded(secret: Secret): { ca: boolean; namespace: boolean; token: boolean } {
    const data = secret.data ?? {};
    const rootCa = this.options.rootCaPem;
    return {
      ca: rootCa.length > 0 && decoded(data[CA_KEY]) !== rootCa,
      namespace: !data[NAMESPACE_KEY],
      token: !data[TOKEN_KEY],
    };
  }

  private async generateTokenIfNeeded(serviceAccount: ServiceAccount, cached: Secret): Promise<void> {
    if (!anyNeeded(this.updatesNeeded(cached))) return;
    const namespace = cached.metadata?.namespace ?? '';
    const name = cached.metadata?.name ?? '';
    const live = await unlessNotFound(this.secrets.get(namespace, name));
    // Gone, or a stale cache: the update event on its way brings this Secret back.
    if (!live || live.metadata?.resourceVersion !== cached.metadata?.resourceVersion) return;
    const needed = this.updatesNeeded(live);
    if (!anyNeeded(needed)) return;

    const accountName = serviceAccount.metadata?.name ?? '';
    const accountUid = serviceAccount.metadata?.uid ?? '';
    live.data = { ...live.data };
    if (needed.ca) live.data[CA_KEY] = encoded(this.options.rootCaPem);
    if (needed.namespace) live.data[NAMESPACE_KEY] = encoded(namespace);
    if (needed.token) {
      const token = issueLegacyServiceAccountToken(
        { privateKeyPem: this.options.signingKeyPem },
        { namespace, serviceAccount: { name: accountName, uid: accountUid }, secretName: name },
      );
      live.data[TOKEN_KEY] = encoded(token);
    }
    live.metadata = {
      ...live.metadata,
      annotations: {
        ...live.metadata?.annotations,
        [SERVICE_ACCOUNT_NAME_ANNOTATION]: accountName,
        [SERVICE_ACCOUNT_UID_ANNOTATION]: accountUid,
      },
    };
    try {
      await this.secrets.update(live);
    } catch (error) {
      // Changed meanwhile (an update event follows) or gone: nothing to retry.
      if (isConflict(error) || isNotFound(error)) return;
      throw error;
    }
  }

  /** Deletes a token Secret, only the one with this UID. */
  private async deleteToken(namespace: string, name: string, uid: string): Promise<void> {
    try {
      await this.secrets.delete(namespace, name, uid ? { preconditions: { uid } } : undefined);
    } catch (error) {
      // Gone already, or replaced by another Secret of that name (the precondition failed).
      if (isNotFound(error) || isConflict(error)) return;
      throw error;
    }
  }

  /** Drops a deleted Secret from its account's `secrets` list, retrying conflicts a few times. */
  private async removeSecretReference(
    namespace: string,
    account: string,
    accountUid: string,
    secretName: string,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const serviceAccount = await unlessNotFound(this.accounts.get(namespace, account));
      if (!serviceAccount || (accountUid && serviceAccount.metadata?.uid !== accountUid)) return;
      const references = serviceAccount.secrets ?? [];
      if (!references.some((reference) => reference.name === secretName)) return;
      serviceAccount.secrets = references.filter((reference) => reference.name !== secretName);
      try {
        await this.accounts.update(serviceAccount);
        return;
      } catch (error) {
        if (isNotFound(error)) return;
        if (!isConflict(error) || attempt >= REMOVE_REFERENCE_ATTEMPTS) throw error;
      }
    }
  }

  private cachedAccount(namespace: string, name: string, uid: string): ServiceAccount | undefined {
    const account = this.context.informers.listerFor<ServiceAccount>(SERVICE_ACCOUNTS).get(namespace, name);
    return account && (!uid || account.metadata?.uid === uid) ? account : undefined;
  }

  private cachedSecret(namespace: string, name: string, uid: string): Secret | undefined {
    const secret = this.context.informers.listerFor<Secret>(SECRETS).get(namespace, name);
    return secret && (!uid || secret.metadata?.uid === uid) ? secret : undefined;
  }

  /** The account from the cache, else from the server (a new account may not be cached yet). */
  private async liveAccount(
    namespace: string,
    name: string,
    uid: string,
  ): Promise<ServiceAccount | undefined> {
    const cached = this.cachedAccount(namespace, name, uid);
    if (cached) return cached;
    const account = await unlessNotFound(this.accounts.get(namespace, name));
    return account && (!uid || account.metadata?.uid === uid) ? account : undefined;
  }

  /** The token Secrets of an account: its name, and its UID unless the Secret names none. */
  private tokenSecretsOf(namespace: string, name: string, uid: string): Secret[] {
    return this.context.informers
      .listerFor<Secret>(SECRETS)
      .list(namespace)
      .filter((secret) => {
        if (secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE) return false;
        const annotations = secret.metadata?.annotations ?? {};
        const secretUid = annotations[SERVICE_ACCOUNT_UID_ANNOTATION] ?? '';
        return annotations[SERVICE_ACCOUNT_NAME_ANNOTATION] === name && (!secretUid || secretUid === uid);
      });
  }
}

/** The object read, or undefined when it does not exist. */
async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

function anyNeeded(needed: { ca: boolean; namespace: boolean; token: boolean }): boolean {
  return needed.ca || needed.namespace || needed.token;
}

function encoded(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function decoded(base64: string | undefined): string {
  return base64 === undefined ? '' : Buffer.from(base64, 'base64').toString('utf8');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const serviceAccountTokenController: ControllerDescriptor = {
  name: 'serviceaccount-token-controller',
  create: (context) => {
    const signingKeyPem = context.settings.serviceAccountPrivateKeyPem;
    // Without a signing key kube-controller-manager does not start the controller.
    if (!signingKeyPem) return IDLE_CONTROLLER;
    return new TokensController(context, { signingKeyPem, rootCaPem: context.settings.rootCaPem });
  },
};
