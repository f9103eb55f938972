package dev.counters.spring.boot;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** A web application with nothing but auto-configuration, for the endpoint's HTTP tests. */
@SpringBootConfiguration
@EnableAutoConfiguration
class EndpointApplication {}
