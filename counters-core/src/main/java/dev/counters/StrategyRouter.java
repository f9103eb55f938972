package dev.counters;

import dev.counters.strategy.CounterStrategy;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Chooses a counter's strategy: exact name first, then the first matching pattern, then the default. */
record StrategyRouter(Map<String, CounterStrategy> exact, List<Route> patterns, CounterStrategy fallback) {

    record Route(Pattern pattern, CounterStrategy strategy) {
    }

    StrategyRouter {
        exact = Map.copyOf(exact);
        patterns = List.copyOf(patterns);
    }

    CounterStrategy route(CounterName name) {
        CounterStrategy strategy = exact.get(name.value());
        if (strategy != null) {
            return strategy;
        }
        for (Route route : patterns) {
            if (route.pattern().matcher(name.value()).matches()) {
                return route.strategy();
            }
        }
        return fallback;
    }
}
