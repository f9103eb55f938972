package dev.counters.hibernate;

import dev.counters.sequence.Sequence;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Supplier;
import org.hibernate.MappingException;
import org.hibernate.engine.config.spi.ConfigurationService;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;
import org.hibernate.generator.GeneratorCreationContext;
import org.hibernate.id.IdentifierGenerationException;
import org.jspecify.annotations.Nullable;

/**
 * The generator behind {@link CountersSequence}: each id is {@link Sequence#next()} of a block sequence, taken when
 * the entity is persisted. Hibernate makes one per annotated id when the {@code EntityManagerFactory} is built; a
 * missing service, an id of another type or a gapless sequence fail that build.
 */
public final class CountersSequenceGenerator implements BeforeExecutionGenerator {

    private static final long serialVersionUID = 1L;

    private static final Set<Class<?>> LONG_TYPES = Set.of(Long.class, long.class);
    private static final Set<Class<?>> INT_TYPES = Set.of(Integer.class, int.class);

    private final String sequenceName;
    /** The annotated attribute, {@code Entity.attribute}, for messages. */
    private final String attribute;

    private final boolean intId;
    /** The service's source until the first id, when it was given as a supplier; null once resolved. */
    private transient volatile @Nullable Supplier<?> pending;

    private transient volatile @Nullable Sequence sequence;

    /** Called by Hibernate for each id annotated with {@link CountersSequence}. */
    public CountersSequenceGenerator(CountersSequence config, Member member, GeneratorCreationContext context) {
        this.sequenceName = config.value();
        this.attribute = context.getPersistentClass().getEntityName() + "." + attributeName(member);
        Class<?> type = type(member, context);
        this.intId = INT_TYPES.contains(type);
        if (!intId && !LONG_TYPES.contains(type)) {
            throw new MappingException("@CountersSequence(\"" + sequenceName + "\") on " + attribute
                    + " needs a Long, long, Integer or int id, and " + attribute + " is a " + type.getName());
        }
        Object configured = context.getServiceRegistry()
                .requireService(ConfigurationService.class)
                .getSettings()
                .get(CountersSequence.SEQUENCE_SERVICE);
        if (configured instanceof SequenceService) {
            this.sequence = sequenceOf((SequenceService) configured);
        } else if (configured instanceof Supplier) {
            this.pending = (Supplier<?>) configured;
        } else if (configured == null) {
            throw new MappingException(
                    "@CountersSequence(\"" + sequenceName + "\") on " + attribute
                            + " needs a SequenceService: set the property '" + CountersSequence.SEQUENCE_SERVICE
                            + "' of the persistence unit to it (counters-spring-boot-starter does, for its SequenceService bean)");
        } else {
            throw new MappingException("The property '" + CountersSequence.SEQUENCE_SERVICE + "' must hold a "
                    + SequenceService.class.getName() + " or a Supplier of one, and holds a "
                    + configured.getClass().getName());
        }
    }

    /** The attribute's name: the field's, or the getter's without get or is. */
    private static String attributeName(Member member) {
        String name = member.getName();
        if (member instanceof Method) {
            int prefix = name.startsWith("get") ? 3 : name.startsWith("is") ? 2 : 0;
            if (prefix > 0 && name.length() > prefix) {
                return Character.toLowerCase(name.charAt(prefix)) + name.substring(prefix + 1);
            }
        }
        return name;
    }

    private static Class<?> type(Member member, GeneratorCreationContext context) {
        if (member instanceof Field) {
            return ((Field) member).getType();
        }
        if (member instanceof Method) {
            return ((Method) member).getReturnType();
        }
        return context.getType().getReturnedClass();
    }

    /**
     * The sequence from the service; refused when its name is not a valid one, or when it is gapless: a gapless
     * number would join the entity's transaction, and hold the sequence's row until it ends.
     */
    private Sequence sequenceOf(SequenceService service) {
        Sequence sequence;
        try {
            sequence = service.sequence(sequenceName);
        } catch (IllegalArgumentException e) {
            throw new MappingException(
                    "@CountersSequence(\"" + sequenceName + "\") on " + attribute + ": " + e.getMessage(), e);
        }
        if (sequence.settings().mode() == SequenceSettings.Mode.GAPLESS) {
            throw new MappingException("@CountersSequence(\"" + sequenceName + "\") on " + attribute
                    + " needs a block sequence, and sequence '" + sequenceName + "' is gapless: a gapless number is"
                    + " reserved in the caller's transaction when it can join it, so every insert would wait for the"
                    + " one before to commit. Give the sequence mode block (the default)");
        }
        return sequence;
    }

    @Override
    public Object generate(
            SharedSessionContractImplementor session,
            Object owner,
            @Nullable Object currentValue,
            EventType eventType) {
        long id = sequence().next();
        if (!intId) {
            return id;
        }
        if ((int) id != id) {
            throw new IdentifierGenerationException("Sequence '" + sequenceName + "' handed out " + id
                    + ", which does not fit the Integer id " + attribute
                    + ": make the id a Long, or give the sequence a max-value of at most " + Integer.MAX_VALUE);
        }
        return (int) id;
    }

    private Sequence sequence() {
        Sequence current = sequence;
        return current != null ? current : resolve();
    }

    private synchronized Sequence resolve() {
        Sequence current = sequence;
        if (current != null) {
            return current;
        }
        Supplier<?> source = pending;
        Object service = source == null ? null : source.get();
        if (!(service instanceof SequenceService)) {
            throw new IdentifierGenerationException("The Supplier under '" + CountersSequence.SEQUENCE_SERVICE
                    + "' must give a " + SequenceService.class.getName() + ", and gave "
                    + (service == null ? "null" : service.getClass().getName()));
        }
        current = sequenceOf((SequenceService) service);
        sequence = current;
        pending = null;
        return current;
    }

    @Override
    public EnumSet<EventType> getEventTypes() {
        return EventTypeSets.INSERT_ONLY;
    }
}
