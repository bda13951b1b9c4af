import { metricNamesOf, sampleNamesOf } from './promql';

describe('metricNamesOf', () => {
  it('finds the metrics of an expression, not its functions, labels, durations or groupings', () => {
    expect(
      metricNamesOf(
        'histogram_quantile(0.99, sum by (le, route) (rate(http_server_request_duration_seconds_bucket{namespace=~"$namespace", route!="none"}[$__rate_interval])))',
      ),
    ).toEqual(['http_server_request_duration_seconds_bucket']);
    expect(
      metricNamesOf('sum by (listener) (rate(a_total{status_class="5xx"}[5m])) / on (listener) group_left sum without (pod) (rate(b_total[5m])) > 0.05 and up == 0'),
    ).toEqual(['a_total', 'b_total', 'up']);
    expect(metricNamesOf('max(x_seconds offset 1h) - min(y:recorded:rate5m) < bool inf')).toEqual(['x_seconds', 'y:recorded:rate5m']);
  });
});

describe('sampleNamesOf', () => {
  it('lists sample names, not the names only declared', () => {
    const text = ['# HELP h a histogram', '# TYPE h histogram', 'h_bucket{le="1"} 0', 'h_sum 0', 'h_count 0', '# TYPE c counter', 'g{a="b"} 1', ''].join('\n');
    expect([...sampleNamesOf(text)]).toEqual(['h_bucket', 'h_sum', 'h_count', 'g']);
  });
});
