"""The cooperative sticky assignor, as properties: every partition once, balanced, as sticky as can be,
and cooperative rounds that never hand out a partition its owner still holds."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from conveyor.log import TopicPartition
from conveyor.log.consumer_protocol import Subscription
from conveyor.log.sticky_assignor import assign_sticky, valid_ownership, withhold_transfers

Topics = dict[str, int]
Subscriptions = dict[str, Subscription]

topic_layouts = st.dictionaries(st.sampled_from(["a", "b", "c"]), st.integers(0, 9), min_size=1)
member_ids = st.lists(st.sampled_from([f"m{n}" for n in range(7)]), min_size=1, max_size=7, unique=True)


def all_partitions(topics: Topics) -> list[TopicPartition]:
    return [TopicPartition(topic, p) for topic, count in sorted(topics.items()) for p in range(count)]


@st.composite
def previous_owners(draw: st.DrawFn, topics: Topics, members: list[str]) -> dict[str, set[TopicPartition]]:
    """A previous assignment: each partition owned by one member or by none."""
    owners: dict[str, set[TopicPartition]] = {member: set() for member in members}
    for partition in all_partitions(topics):
        owner = draw(st.sampled_from([None, *members]))
        if owner is not None:
            owners[owner].add(partition)
    return owners


@st.composite
def uniform_groups(draw: st.DrawFn) -> tuple[Topics, Subscriptions]:
    """Every member subscribed to every topic, owning what a previous generation gave it."""
    topics, members = draw(topic_layouts), draw(member_ids)
    owners = draw(previous_owners(topics, members))
    return topics, {m: Subscription(tuple(topics), tuple(owners[m]), 3) for m in members}


@st.composite
def mixed_groups(draw: st.DrawFn) -> tuple[Topics, Subscriptions]:
    """Members subscribed to different topics, with claims from different generations (and stale ones)."""
    topics, members = draw(topic_layouts), draw(member_ids)
    owners = draw(previous_owners(topics, members))
    subscriptions: Subscriptions = {}
    for member in members:
        subscribed = draw(st.lists(st.sampled_from(sorted(topics)), min_size=1, unique=True))
        generation = draw(st.sampled_from([-1, 2, 3]))
        stale = draw(st.sets(st.sampled_from(all_partitions(topics)))) if all_partitions(topics) else set()
        owned = owners[member] | (stale if generation < 3 else set())
        subscriptions[member] = Subscription(tuple(subscribed), tuple(owned), generation)
    return topics, subscriptions


def subscribed_partitions(topics: Topics, subscriptions: Subscriptions) -> set[TopicPartition]:
    wanted = {topic for subscription in subscriptions.values() for topic in subscription.topics}
    return {tp for tp in all_partitions(topics) if tp.topic in wanted}


def assert_every_partition_once(
    topics: Topics, subscriptions: Subscriptions, assignment: dict[str, list[TopicPartition]]
) -> None:
    counts = Counter(tp for partitions in assignment.values() for tp in partitions)
    assert set(counts) == subscribed_partitions(topics, subscriptions)
    assert set(counts.values()) <= {1}
    for member, partitions in assignment.items():
        assert all(tp.topic in subscriptions[member].topics for tp in partitions)


def assert_balanced(subscriptions: Subscriptions, assignment: dict[str, list[TopicPartition]]) -> None:
    """No partition could move to a member subscribed to it that holds at least two fewer."""
    for given_partitions in assignment.values():
        for taker, taken in assignment.items():
            if len(given_partitions) >= len(taken) + 2:
                assert not [tp for tp in given_partitions if tp.topic in subscriptions[taker].topics]


@given(mixed_groups())
def test_every_subscribed_partition_goes_to_exactly_one_member_subscribed_to_its_topic(
    group: tuple[Topics, Subscriptions],
) -> None:
    topics, subscriptions = group
    assert_every_partition_once(topics, subscriptions, assign_sticky(subscriptions, topics.__getitem__))


@given(mixed_groups())
def test_the_assignment_is_balanced(group: tuple[Topics, Subscriptions]) -> None:
    topics, subscriptions = group
    assert_balanced(subscriptions, assign_sticky(subscriptions, topics.__getitem__))


@given(uniform_groups())
def test_with_equal_subscriptions_counts_differ_by_at_most_one(group: tuple[Topics, Subscriptions]) -> None:
    topics, subscriptions = group
    sizes = [len(p) for p in assign_sticky(subscriptions, topics.__getitem__).values()]
    assert max(sizes) - min(sizes) <= 1


@given(uniform_groups())
def test_with_equal_subscriptions_as_many_partitions_stay_as_any_balanced_assignment_allows(
    group: tuple[Topics, Subscriptions],
) -> None:
    topics, subscriptions = group
    assignment = assign_sticky(subscriptions, topics.__getitem__)
    owned = {m: len(s.owned_partitions) for m, s in subscriptions.items()}
    quota, extra = divmod(len(all_partitions(topics)), len(subscriptions))
    most_that_can_stay = sum(min(n, quota) for n in owned.values()) + min(
        extra, sum(1 for n in owned.values() if n > quota)
    )
    stayed = sum(len(set(assignment[m]) & set(s.owned_partitions)) for m, s in subscriptions.items())
    assert stayed == most_that_can_stay


@given(mixed_groups())
def test_a_settled_group_that_rejoins_unchanged_keeps_its_assignment(
    group: tuple[Topics, Subscriptions],
) -> None:
    topics, subscriptions = group
    first = assign_sticky(subscriptions, topics.__getitem__)
    settled = {m: Subscription(s.topics, tuple(first[m]), 4) for m, s in subscriptions.items()}
    assert assign_sticky(settled, topics.__getitem__) == first


@given(mixed_groups())
def test_only_claims_of_the_newest_generation_on_subscribed_topics_and_unshared_count(
    group: tuple[Topics, Subscriptions],
) -> None:
    topics, subscriptions = group
    newest = max(s.generation for s in subscriptions.values())
    valid = valid_ownership(subscriptions, set(all_partitions(topics)))
    for member, claims in valid.items():
        subscription = subscriptions[member]
        assert claims <= set(subscription.owned_partitions)
        assert not claims or subscription.generation == newest
        assert all(tp.topic in subscription.topics for tp in claims)
        for other, other_claims in valid.items():
            assert other == member or not claims & other_claims


@given(mixed_groups())
def test_a_cooperative_round_hands_out_no_partition_another_member_still_owns(
    group: tuple[Topics, Subscriptions],
) -> None:
    topics, subscriptions = group
    first_round = withhold_transfers(assign_sticky(subscriptions, topics.__getitem__), subscriptions)
    for member, partitions in first_round.items():
        for other, subscription in subscriptions.items():
            if other != member:
                assert not set(partitions) & set(subscription.owned_partitions)


def next_round(
    topics: Topics, subscriptions: Subscriptions, generation: int
) -> tuple[dict[str, list[TopicPartition]], Subscriptions]:
    """One cooperative rebalance: what each member is given, and what each then owns (it revoked
    the rest) when it rejoins at ``generation``."""
    given = withhold_transfers(assign_sticky(subscriptions, topics.__getitem__), subscriptions)
    return given, {m: Subscription(s.topics, tuple(given[m]), generation) for m, s in subscriptions.items()}


@given(uniform_groups())
def test_with_equal_subscriptions_the_follow_up_round_assigns_everything_balanced(
    group: tuple[Topics, Subscriptions],
) -> None:
    topics, subscriptions = group
    first_round, owned = next_round(topics, subscriptions, 4)
    follow_up, _ = next_round(topics, owned, 5)
    assert_every_partition_once(topics, subscriptions, follow_up)
    assert_balanced(subscriptions, follow_up)
    assert all(set(first_round[m]) <= set(follow_up[m]) for m in subscriptions)


@given(mixed_groups())
def test_with_any_subscriptions_follow_up_rounds_settle_on_an_assignment_of_everything_balanced(
    group: tuple[Topics, Subscriptions],
) -> None:
    topics, subscriptions = group
    for generation in range(4, 14):
        given, subscriptions = next_round(topics, subscriptions, generation)
        if sum(len(partitions) for partitions in given.values()) == len(
            subscribed_partitions(topics, subscriptions)
        ):
            break
    assert_every_partition_once(topics, subscriptions, given)
    assert_balanced(subscriptions, given)
