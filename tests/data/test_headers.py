from conveyor.data import STRING_SCHEMA, Header, Headers


def test_headers_keep_insertion_order_and_repeated_keys() -> None:
    headers = Headers().add("a", 1).add("b", 2).add("a", 3)
    assert [(h.key, h.value) for h in headers] == [("a", 1), ("b", 2), ("a", 3)]


def test_last_with_name_returns_the_latest_header_of_a_key() -> None:
    headers = Headers().add("a", 1).add("a", 3, STRING_SCHEMA)
    assert headers.last_with_name("a") == Header("a", 3, STRING_SCHEMA)
    assert headers.last_with_name("missing") is None


def test_all_with_name_returns_every_header_of_a_key() -> None:
    headers = Headers().add("a", 1).add("b", 2).add("a", 3)
    assert [h.value for h in headers.all_with_name("a")] == [1, 3]


def test_remove_drops_every_header_of_a_key() -> None:
    headers = Headers().add("a", 1).add("b", 2).add("a", 3).remove("a")
    assert [h.key for h in headers] == ["b"]
    assert len(headers) == 1


def test_retain_latest_keeps_one_header_per_key() -> None:
    headers = Headers().add("a", 1).add("b", 2).add("a", 3).retain_latest()
    assert [(h.key, h.value) for h in headers] == [("b", 2), ("a", 3)]


def test_a_copy_is_independent_of_the_original() -> None:
    original = Headers().add("a", 1)
    duplicate = original.copy().add("b", 2)
    assert len(original) == 1
    assert len(duplicate) == 2
