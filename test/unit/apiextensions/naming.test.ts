// The naming controller's decisions: names free in the group are accepted, taken ones refused
// with the last conflict found, and Established follows accepted names.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { calculateNames } from '../../../src/apiserver/apiextensions/naming-controller.js';

function crd(name: string, names: Record<string, unknown>, accepted?: Record<string, unknown>): KubeObject {
  return {
    metadata: { name },
    spec: {
      group: 'example.com',
      names: { listKind: `${names.kind}List`, singular: String(names.kind).toLowerCase(), ...names },
    },
    status: accepted ? { acceptedNames: accepted } : {},
  };
}

describe('naming', () => {
  const holder = crd(
    'widgets.example.com',
    { plural: 'widgets', kind: 'Widget' },
    {
      plural: 'widgets',
      singular: 'widget',
      kind: 'Widget',
      listKind: 'WidgetList',
      shortNames: ['wd'],
    },
  );

  it('accepts free names and establishes', () => {
    const result = calculateNames(
      crd('gizmos.example.com', { plural: 'gizmos', kind: 'Gizmo', shortNames: ['gz'] }),
      [holder],
    );
    expect(result.acceptedNames).toMatchObject({ plural: 'gizmos', kind: 'Gizmo', shortNames: ['gz'] });
    expect(result.namesAccepted).toEqual({
      type: 'NamesAccepted',
      status: 'True',
      reason: 'NoConflicts',
      message: 'no conflicts found',
    });
    expect(result.established).toEqual({
      type: 'Established',
      status: 'True',
      reason: 'InitialNamesAccepted',
      message: 'the initial names have been accepted',
    });
  });

  it('refuses names the group holds, keeping the free ones', () => {
    const result = calculateNames(
      crd('gizmos.example.com', { plural: 'gizmos', kind: 'Gizmo', shortNames: ['wd', 'widget'] }),
      [holder],
    );
    expect(result.namesAccepted).toMatchObject({
      status: 'False',
      reason: 'ShortNamesConflict',
      message: '["wd" is already in use, "widget" is already in use]',
    });
    expect(result.acceptedNames).toMatchObject({ plural: 'gizmos', kind: 'Gizmo', shortNames: [] });
    expect(result.established).toMatchObject({ status: 'False', reason: 'NotAccepted' });
  });

  it('ignores other groups and keeps names already accepted', () => {
    const elsewhere = { ...holder, spec: { ...(holder.spec as object), group: 'other.com' } };
    expect(
      calculateNames(crd('widgets.example.com', { plural: 'widgets', kind: 'Widget' }), [elsewhere])
        .namesAccepted.status,
    ).toBe('True');
    const renamed = crd(
      'widgets.example.com',
      { plural: 'widgets', kind: 'Widget', shortNames: ['w'] },
      {
        plural: 'widgets',
        singular: 'widget',
        kind: 'Widget',
        listKind: 'WidgetList',
        shortNames: ['wd'],
      },
    );
    expect(calculateNames(renamed, [holder]).acceptedNames.shortNames).toEqual(['w']);
  });
});
