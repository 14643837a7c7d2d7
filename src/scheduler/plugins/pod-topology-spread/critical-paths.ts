// The two topology domains with the fewest matching pods for one constraint (criticalPaths):
// [0] is the global minimum the skew is measured against. Updated incrementally as preemption
// adds and removes pods, exactly as upstream does (including its approximations).
export interface TopologyMatch {
  topologyValue: string;
  matchNum: number;
}

const MAX_INT32 = 2 ** 31 - 1;

export class CriticalPaths {
  readonly paths: [TopologyMatch, TopologyMatch] = [
    { topologyValue: '', matchNum: MAX_INT32 },
    { topologyValue: '', matchNum: MAX_INT32 },
  ];

  update(value: string, num: number): void {
    const paths = this.paths;
    let index = -1;
    if (value === paths[0].topologyValue) index = 0;
    else if (value === paths[1].topologyValue) index = 1;
    if (index >= 0) {
      paths[index]!.matchNum = num;
      if (paths[0].matchNum > paths[1].matchNum) {
        const first = paths[0];
        paths[0] = paths[1];
        paths[1] = first;
      }
      return;
    }
    if (num < paths[0].matchNum) {
      paths[1] = paths[0];
      paths[0] = { topologyValue: value, matchNum: num };
    } else if (num < paths[1].matchNum) {
      paths[1] = { topologyValue: value, matchNum: num };
    }
  }

  clone(): CriticalPaths {
    const copy = new CriticalPaths();
    copy.paths[0] = { ...this.paths[0] };
    copy.paths[1] = { ...this.paths[1] };
    return copy;
  }
}
