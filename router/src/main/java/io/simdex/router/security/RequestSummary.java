package io.simdex.router.security;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;

import java.util.Set;

/**
 * A request as logs may show it: the names it gives, the numbers and flags it sets in wrapper
 * fields (settings such as {@code max_distance}), and the size of each list, never its contents
 * (texts, ids, URLs): {@code collection=news documents=1000}.
 */
public final class RequestSummary {
    private RequestSummary() {
    }

    /**
     * {@code request}'s string fields named in {@code names} (every string field when null) with
     * their values, and each list with its size; empty for anything but a protobuf message.
     */
    public static String of(Object request, Set<String> names) {
        if (!(request instanceof MessageOrBuilder message)) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (FieldDescriptor field : message.getDescriptorForType().getFields()) {
            String value = "";
            if (field.isRepeated()) {
                value = field.isMapField() ? "" : Integer.toString(message.getRepeatedFieldCount(field));
            } else if (field.getJavaType() == FieldDescriptor.JavaType.STRING && (names == null || names.contains(field.getName()))) {
                value = (String) message.getField(field);
            } else if (isWrapper(field) && message.hasField(field)) {
                Message wrapper = (Message) message.getField(field);
                value = String.valueOf(wrapper.getField(wrapper.getDescriptorForType().findFieldByName("value")));
            }
            if (!value.isEmpty()) {
                out.append(out.length() == 0 ? "" : " ").append(field.getName()).append('=').append(value);
            }
        }
        return out.toString();
    }

    /** A google.protobuf wrapper of a number or flag (UInt32Value, DoubleValue, ...): a setting, never a document's content. */
    private static boolean isWrapper(FieldDescriptor field) {
        return field.getJavaType() == FieldDescriptor.JavaType.MESSAGE && !field.isRepeated()
                && field.getMessageType().getFile().getName().equals("google/protobuf/wrappers.proto")
                && !field.getMessageType().getName().equals("StringValue") && !field.getMessageType().getName().equals("BytesValue");
    }
}
