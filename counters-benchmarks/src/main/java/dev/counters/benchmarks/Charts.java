package dev.counters.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Throughput against threads, one line per workload, as PNG files next to the report. */
final class Charts {

    private Charts() {
    }

    /** Writes the chart of {@code results} (one database, one counter count) and returns its file name. */
    static String throughputByThreads(Path directory, String fileName, String title, List<LoadResult> results)
            throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(560).title(title)
                .xAxisTitle("threads").yAxisTitle("increments per second (log scale)").build();
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        Map<String, TreeMap<Integer, Double>> series = new java.util.LinkedHashMap<>();
        for (LoadResult result : results) {
            series.computeIfAbsent(result.workload(), name -> new TreeMap<>())
                    .put(result.threads(), Math.max(1, result.operationsPerSecond()));
        }
        series.forEach((workload, points) -> chart.addSeries(workload,
                points.keySet().stream().mapToDouble(Integer::doubleValue).toArray(),
                points.values().stream().mapToDouble(Double::doubleValue).toArray())
                .setMarker(SeriesMarkers.CIRCLE));
        BitmapEncoder.saveBitmap(chart, directory.resolve(fileName).toString(), BitmapEncoder.BitmapFormat.PNG);
        return fileName.endsWith(".png") ? fileName : fileName + ".png";
    }
}
