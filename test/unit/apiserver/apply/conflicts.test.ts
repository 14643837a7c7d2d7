// structured-merge-diff's conflicts and kube-apiserver's 409 wording.
import { describe, expect, it } from 'vitest';
import { fieldElement as f, keyElement } from '../../../../src/apiserver/apply/fieldpath/path-element.js';
import { FieldSet } from '../../../../src/apiserver/apply/fieldpath/set.js';
import {
  conflictMessage,
  conflictsFromManagers,
  printManager,
} from '../../../../src/apiserver/apply/merge/conflicts.js';

describe('conflicts', () => {
  it('prints managers as kube-apiserver does', () => {
    expect(printManager('{"manager":"kubectl","operation":"Apply"}')).toBe('"kubectl"');
    expect(printManager('{"manager":"kubectl-edit","operation":"Update","apiVersion":"apps/v1"}')).toBe(
      '"kubectl-edit" using apps/v1',
    );
    expect(
      printManager('{"manager":"k","operation":"Update","apiVersion":"v1","subresource":"status"}'),
    ).toBe('"k" with subresource "status" using v1');
    expect(printManager('not json')).toBe('"not json"');
  });

  it('repeats the last sibling where upstream shared a prefix slice with spare capacity', () => {
    const web = keyElement([{ name: 'name', value: 'web' }]);
    // Prefix .containers[web].resources has length 3 and capacity 4: members overwrite each other.
    const set = FieldSet.of(
      [f('containers'), web, f('image')],
      [f('containers'), web, f('resources'), f('cpu')],
      [f('containers'), web, f('resources'), f('memory')],
      [f('labels'), f('x')],
      [f('labels'), f('z')],
    );
    const conflicts = conflictsFromManagers(new Map([['{"manager":"m","operation":"Apply"}', set]]));
    expect(conflictMessage(conflicts)).toBe(
      [
        'Apply failed with 5 conflicts: conflicts with "m":',
        '- .containers[name="web"].image',
        '- .containers[name="web"].resources.memory',
        '- .containers[name="web"].resources.memory',
        '- .labels.x',
        '- .labels.z',
      ].join('\n'),
    );
  });
});
