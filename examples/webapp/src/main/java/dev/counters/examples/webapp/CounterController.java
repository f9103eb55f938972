package dev.counters.examples.webapp;

import dev.counters.CounterService;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /counters/{name}/increment[?by=n]} and {@code GET /counters/{name}}; {@code GET /counters?names=a,b}
 * reads several at once. Bad names and deltas are answered by {@link BadRequestAdvice}.
 */
@RestController
@RequestMapping("/counters")
class CounterController {

    record CounterValue(String name, long value) {}

    private final CounterService counters;

    CounterController(CounterService counters) {
        this.counters = counters;
    }

    @PostMapping("/{name}/increment")
    CounterValue increment(@PathVariable String name, @RequestParam(defaultValue = "1") long by) {
        return new CounterValue(name, counters.incrementAndGet(name, by));
    }

    @GetMapping("/{name}")
    CounterValue get(@PathVariable String name) {
        return new CounterValue(name, counters.get(name));
    }

    @GetMapping
    Map<String, Long> getAll(@RequestParam List<String> names) {
        return counters.get(names);
    }
}
