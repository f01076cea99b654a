// TEST FIXTURE, not a load tool: the double of `k6/metrics`. Each add() is one sample with the VU's
// tags (scenario, scenario tags) merged with the call's, as k6 records them.
import { addSample, registerMetric } from './vu-runtime.ts';
import type { MetricType } from './protocol.ts';

abstract class Metric {
  readonly name: string;
  readonly time: boolean;
  protected abstract readonly type: MetricType;
  constructor(name: string, isTime = false) {
    this.name = name;
    this.time = isTime;
  }
  protected register(): void {
    registerMetric(this.name, this.type, this.time);
  }
  add(value: number | boolean, tags?: { [k: string]: string }): void {
    addSample(this.name, this.type, this.time, typeof value === 'boolean' ? (value ? 1 : 0) : value, tags);
  }
}

export class Counter extends Metric {
  protected readonly type = 'counter' as const;
  constructor(name: string) {
    super(name, false);
    this.register();
  }
}

export class Gauge extends Metric {
  protected readonly type = 'gauge' as const;
  constructor(name: string, isTime = false) {
    super(name, isTime);
    this.register();
  }
}

export class Rate extends Metric {
  protected readonly type = 'rate' as const;
  constructor(name: string) {
    super(name, false);
    this.register();
  }
}

export class Trend extends Metric {
  protected readonly type = 'trend' as const;
  constructor(name: string, isTime = false) {
    super(name, isTime);
    this.register();
  }
}

export default { Counter, Gauge, Rate, Trend };
