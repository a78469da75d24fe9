package io.simdex.client.cli;

import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.SketchSettings;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SettingsOptionsTest {
    @Command(name = "create")
    static final class Holder {
        @Mixin
        SettingsOptions settings;
    }

    private static CollectionSettings parse(String... args) throws BadInputException {
        Holder h = new Holder();
        new CommandLine(h).parseArgs(args);
        return h.settings.toProto();
    }

    @Test
    void sketchFlags_unsetLeavesTheServerDefault_onAndOffExplicit() throws BadInputException {
        assertFalse(parse().hasSketch());
        assertEquals(SketchSettings.newBuilder().setEnabled(true).build(), parse("--sketch").getSketch());
        assertEquals(SketchSettings.newBuilder().setEnabled(false).build(), parse("--no-sketch").getSketch());
        assertEquals(SketchSettings.newBuilder().setEnabled(true).setMinJaccard(0.5).setCandidateDistance(6).build(),
                parse("--sketch-min-jaccard", "0.5", "--sketch-distance", "6").getSketch(), "a sketch option turns sketches on");
    }

    @Test
    void sketchFlags_tunedButOff_rejected() {
        BadInputException e = assertThrows(BadInputException.class, () -> parse("--no-sketch", "--sketch-min-jaccard", "0.5"));
        assertTrue(e.getMessage().contains("--no-sketch"), e.getMessage());
    }

    @Test
    void describe_sketchOn_shown_off_not() {
        CollectionSettings.Builder s = CollectionSettings.newBuilder();
        assertFalse(SettingsOptions.describe(s.setSketch(SketchSettings.newBuilder().setEnabled(false)).build()).contains("sketch"));
        assertTrue(SettingsOptions.describe(s.setSketch(SketchSettings.newBuilder().setEnabled(true).setMinJaccard(0.4)
                .setCandidateDistance(7)).build()).contains(" sketch(k<=7, jaccard>=0.4)"));
    }
}
