package dev.counters.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Throughput against threads, one line per workload, and latency bars, as PNG files next to the report. */
final class Charts {

    private Charts() {}

    /** Writes the chart of {@code results} (one database, one counter count) and returns its file name. */
    static String throughputByThreads(Path directory, String fileName, String title, List<LoadResult> results)
            throws IOException {
        XYChart chart = new XYChartBuilder()
                .width(900)
                .height(560)
                .title(title)
                .xAxisTitle("threads")
                .yAxisTitle("increments per second (log scale)")
                .build();
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        Map<String, TreeMap<Integer, Double>> series = new java.util.LinkedHashMap<>();
        for (LoadResult result : results) {
            series.computeIfAbsent(result.workload(), name -> new TreeMap<>())
                    .put(result.threads(), Math.max(1, result.operationsPerSecond()));
        }
        series.forEach((workload, points) -> chart.addSeries(
                        workload,
                        points.keySet().stream()
                                .mapToDouble(Integer::doubleValue)
                                .toArray(),
                        points.values().stream()
                                .mapToDouble(Double::doubleValue)
                                .toArray())
                .setMarker(SeriesMarkers.CIRCLE));
        BitmapEncoder.saveBitmap(chart, directory.resolve(fileName).toString(), BitmapEncoder.BitmapFormat.PNG);
        return fileName.endsWith(".png") ? fileName : fileName + ".png";
    }

    /** p50 and p99 latency per workload, as grouped bars on a log scale. */
    static void latency(Path directory, String fileName, String title, Map<String, double[]> p50AndP99)
            throws IOException {
        if (p50AndP99.isEmpty()) {
            return;
        }
        CategoryChart chart = new CategoryChartBuilder()
                .width(900)
                .height(560)
                .title(title)
                .xAxisTitle("workload")
                .yAxisTitle("µs")
                .build();
        chart.getStyler().setYAxisLogarithmic(true);
        // Points, not bars: bars start at zero, which a logarithmic axis cannot show.
        chart.getStyler().setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Scatter);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setXAxisLabelRotation(30);
        List<String> workloads = List.copyOf(p50AndP99.keySet());
        for (int i = 0; i < 2; i++) {
            int percentile = i;
            chart.addSeries(
                    i == 0 ? "p50" : "p99",
                    workloads,
                    workloads.stream()
                            .map(w -> (Number) Math.max(1, p50AndP99.get(w)[percentile]))
                            .toList());
        }
        BitmapEncoder.saveBitmap(chart, directory.resolve(fileName).toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
