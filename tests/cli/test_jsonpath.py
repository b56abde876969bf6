"""kubectl's JSONPath template language, checked against client-go's own test table.

Every case below is a case of ``k8s.io/client-go/util/jsonpath/jsonpath_test.go`` (the test
function is named in each table), with Go structs written as the JSON kubectl would see. Where Go
prints a map in random order the expected output is compared as a sorted word list, as that test
does (``testJSONPathSortOutput``).
"""

from __future__ import annotations

import pytest

from workloadmap.cli.printing import jsonpath
from workloadmap.cli.printing.jsonpath import JsonPathError, column, parse, relaxed, render

TYPES = {
    "bools": [True, False, True, False],
    "integers": [1, 2, 3, 4],
    "floats": [1.0, 2.2, 3.3, 4.0],
    "strings": ["one", "two", "three", "four"],
    "interfaces": [True, "one", 1, 1.1],
    "maps": [
        {"name": "one", "value": 1},
        {"name": "two", "value": 2.02},
        {"name": "three", "value": 3.03},
        {"name": "four", "value": 4.04},
    ],
}

# TestTypesInput (Go prints the float 1.0 as 1 inside JSON too).
TYPES_CASES = [
    ("{ .bools }", "[true,false,true,false]"),
    ("{ .bools[0] }", "true"),
    ("{ .bools[-1] }", "false"),
    ("{ .bools[0:2] }", "true false"),
    ("{ .bools[:2] }", "true false"),
    ("{ .bools[:4:2] }", "true true"),
    ("{ .integers }", "[1,2,3,4]"),
    ("{ .integers[-2] }", "3"),
    ("{ .integers[:4:2] }", "1 3"),
    ("{ .floats[0:2] }", "1 2.2"),
    ("{ .floats[-2] }", "3.3"),
    ("{ .floats[:4:2] }", "1 3.3"),
    ("{ .strings }", '["one","two","three","four"]'),
    ("{ .strings[-2] }", "three"),
    ("{ .strings[:4:2] }", "one three"),
    ("{ .interfaces[0:2] }", "true one"),
    ("{ .interfaces[:4:2] }", "true 1"),
    ("{ .maps[0] }", '{"name":"one","value":1}'),
    ("{ .maps[-2] }", '{"name":"three","value":3.03}'),
    ("{ .maps[::2] }", '{"name":"one","value":1} {"name":"three","value":3.03}'),
    ("{ .maps[1::2] }", '{"name":"two","value":2.02} {"name":"four","value":4.04}'),
]


@pytest.mark.parametrize(("template", "expected"), TYPES_CASES)
def test_types_input(template, expected):
    data = dict(TYPES, floats=[1, 2.2, 3.3, 4])  # JSON has no 1.0: kubectl's unstructured data holds ints
    assert render(template, data) == expected


STORE = {
    "Name": "jsonpath",
    "Book": [
        {"Category": "reference", "Author": "Nigel Rees", "Title": "Sayings of the Centurey", "Price": 8.95},
        {"Category": "fiction", "Author": "Evelyn Waugh", "Title": "Sword of Honour", "Price": 12.99},
        {"Category": "fiction", "Author": "Herman Melville", "Title": "Moby Dick", "Price": 8.99},
    ],
    "Bicycle": [{"Color": "red", "Price": 19.95, "IsNew": True}, {"Color": "green", "Price": 20.01, "IsNew": False}],
    "Labels": {"engieer": 10, "web/html": 15, "k8s-app": 20},
    "Employees": {"jason": "manager", "dan": "clerk"},
}

# TestStructInput
STORE_CASES = [
    ("hello jsonpath", None, "hello jsonpath"),
    ("{..}", [1, 2, 3], "[1,2,3]"),
    ("{[?(@<5)]}", [2, 6, 3, 7], "2 3"),
    ('{"{"}', None, "{"),
    ("{[1,3,4]}", [0, 1, 2, 3, 4], "1 3 4"),
    ("{[0:2]}", ["Monday", "Tudesday"], "Monday Tudesday"),
    ("hello {.Name}", STORE, "hello jsonpath"),
    ("{$.Labels.web/html}", STORE, "15"),
    ("{$.Employees.jason}", STORE, "manager"),
    ("{.Labels.k8s-app}", STORE, "20"),
    ("{.Bicycle[*].Color}", STORE, "red green"),
    ("{.Book[*].Author}", STORE, "Nigel Rees Evelyn Waugh Herman Melville"),
    ('{range .Bicycle[*]}{ "{" }{ @.* }{ "} " }{end}', STORE, "{red 19.95 true} {green 20.01 false} "),
    ("{..Price}", STORE, "8.95 12.99 8.99 19.95 20.01"),
    ("{...Price}", STORE, "8.95 12.99 8.99 19.95 20.01"),
    ("{.Bicycle}", STORE, '[{"Color":"red","Price":19.95,"IsNew":true},{"Color":"green","Price":20.01,"IsNew":false}]'),
    (
        '{range .Bicycle[*]}{ @ }{ " " }{end}',
        STORE,
        '{"Color":"red","Price":19.95,"IsNew":true} {"Color":"green","Price":20.01,"IsNew":false} ',
    ),
    ("{.Book[-1:]}", STORE, '{"Category":"fiction","Author":"Herman Melville","Title":"Moby Dick","Price":8.99}'),
    ("{..Book[2]}", STORE, '{"Category":"fiction","Author":"Herman Melville","Title":"Moby Dick","Price":8.99}'),
    ("{.Bicycle[?(@.IsNew==true)]}", STORE, '{"Color":"red","Price":19.95,"IsNew":true}'),
    ("{.Bicycle[?(@.Color=~'.*ed.*')]}", STORE, '{"Color":"red","Price":19.95,"IsNew":true}'),
    ("{.Bicycle[?(@.Color=~'^g.*en.*')]}", STORE, '{"Color":"green","Price":20.01,"IsNew":false}'),
]


@pytest.mark.parametrize(("template", "data", "expected"), STORE_CASES)
def test_struct_input(template, data, expected):
    assert render(template, data, allow_missing=False) == expected


@pytest.mark.parametrize(
    "template",
    [
        "{............................................................Price}",  # superrecurfields
        "{.Bicycle[?(@.IsNew=~'.*ue')]}",  # regexp match with bool is not supported
        "{.Bicycle[?(@.Price=~'.*95')]}",  # regexp match with number is not supported
        "{hello}",  # invalid identifier
        "{.hello}",  # nonexistent field (missing keys not allowed)
        "{.Labels[0]}",  # invalid array
        "{.Book[?(@.Price<>10)]}",  # invalid filter operator
        "{range .Labels.*}{@}{end}{end}",  # redundant end
    ],
)
def test_struct_input_errors(template):
    with pytest.raises(JsonPathError):
        render(template, STORE, allow_missing=False)


def test_missing_keys_print_nothing_when_allowed():
    # TestStructInput: missingKeyTests, run with AllowMissingKeys(true) as kubectl's -o jsonpath is.
    assert render("{.hello}", STORE) == ""
    assert render("before-{.hello}after", STORE) == "before-after"


def test_error_messages_say_what_went_wrong():
    with pytest.raises(JsonPathError, match="unrecognized filter operator <>"):
        parse("{.Book[?(@.Price<>10)]}")
    with pytest.raises(JsonPathError, match="not in range, nothing to end"):
        parse("{range .Labels.*}{@}{end}{end}")
    with pytest.raises(JsonPathError, match="hello is not found"):
        render("{.hello}", STORE, allow_missing=False)
    with pytest.raises(JsonPathError, match="unclosed action"):
        parse("{.a")


POINTS = [
    {"id": "i1", "x": 4, "y": -5},
    {"id": "i2", "x": -2, "y": -5, "z": 1},
    {"id": "i3", "x": 8, "y": 3},
    {"id": "i4", "x": -6, "y": -1},
    {"id": "i5", "x": 0, "y": 2, "z": 1},
    {"id": "i6", "x": 1, "y": 4},
]


def test_json_input():
    # TestJSONInput
    assert render("{[?(@.z)].id}", POINTS, allow_missing=False) == "i2 i5"
    assert render("{[0]['id']}", POINTS, allow_missing=False) == "i1"


NODES = {
    "kind": "List",
    "items": [
        {
            "kind": "None",
            "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
            "status": {
                "capacity": {"cpu": "4"},
                "ready": True,
                "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}],
            },
        },
        {
            "kind": "None",
            "metadata": {"name": "127.0.0.2", "labels": {"kubernetes.io/hostname": "127.0.0.2"}},
            "status": {
                "capacity": {"cpu": "8"},
                "ready": False,
                "addresses": [
                    {"type": "LegacyHostIP", "address": "127.0.0.2"},
                    {"type": "another", "address": "127.0.0.3"},
                ],
            },
        },
    ],
    "users": [{"name": "myself", "user": {}}, {"name": "e2e", "user": {"username": "admin", "password": "secret"}}],
}

# TestKubernetes
KUBERNETES_CASES = [
    ("{range .items[*]}{.metadata.name}, {end}{.kind}", "127.0.0.1, 127.0.0.2, List"),
    ('{range .items[*]}{.metadata.name}{"\\t"}{end}', "127.0.0.1\t127.0.0.2\t"),
    ("{.items[*].status.addresses[*].address}", "127.0.0.1 127.0.0.2 127.0.0.3"),
    ("{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}", "127.0.0.1, 127.0.0.2, 127.0.0.3, "),
    ("{.items[*].metadata.name}", "127.0.0.1 127.0.0.2"),
    ("{.items[*]['metadata.name', 'status.capacity']}", '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}'),
    (
        "{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}",
        '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] ',
    ),
    ('{.users[?(@.name=="e2e")].user.password}', "secret"),
    ("{.items[0].metadata.labels.kubernetes\\.io/hostname}", "127.0.0.1"),
    ('{.items[?(@.metadata.labels.kubernetes\\.io/hostname=="127.0.0.1")].kind}', "None"),
    ("{.items[?(@..ready==true)].metadata.name}", "127.0.0.1"),
]


@pytest.mark.parametrize(("template", "expected"), KUBERNETES_CASES)
def test_kubernetes(template, expected):
    assert render(template, NODES, allow_missing=False) == expected


def test_kubernetes_recursive_name_in_any_order():
    assert sorted(render("{..name}", NODES).split()) == sorted("127.0.0.1 127.0.0.2 myself e2e".split())


def test_empty_range():
    # TestEmptyRange
    assert render("{range .items[*]}{.metadata.name}{end}", {"items": []}) == ""
    nested = '{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}'
    assert render(nested, {"items": []}) == ""


PODS = {
    "items": [
        {
            "metadata": {"name": "pod1"},
            "spec": {
                "containers": [
                    {"name": "foo", "another": [{"name": "value1"}, {"name": "value2"}]},
                    {"name": "bar", "another": [{"name": "value1"}, {"name": "value2"}]},
                ]
            },
        },
        {
            "metadata": {"name": "pod2"},
            "spec": {"containers": [{"name": "baz", "another": [{"name": "value1"}, {"name": "value2"}]}]},
        },
    ]
}


def test_nested_ranges():
    # TestNestedRanges
    first = '{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}'
    assert render(first, PODS, allow_missing=False) == "pod1:foo,bar,+pod2:baz,+"
    second = (
        '{range .items[*]}{.metadata.name}{"~"}{range @.spec.containers[*]}{.name}{":"}'
        '{range @.another[*]}{.name}{","}{end}{"+"}{end}{"#"}{end}'
    )
    expected = "pod1~foo:value1,value2,+bar:value1,value2,+#pod2~baz:value1,value2,+#"
    assert render(second, PODS, allow_missing=False) == expected
    third = (
        '{range .items[*]}{.metadata.name}{"\\t"}{range @.spec.containers[*]}{.name}{" "}{end}{"\\t"}'
        '{range @.spec.containers[*]}{.name}{" "}{end}{"\\n"}{end}'
    )
    assert render(third, PODS, allow_missing=False) == "pod1\tfoo bar \tfoo bar \npod2\tbaz \tbaz \n"


ANNOTATED = {
    "kind": "List",
    "items": [
        {"kind": "Pod", "metadata": {"name": "pod1", "annotations": {"color": "blue"}}},
        {"kind": "Pod", "metadata": {"name": "pod2"}},
        {"kind": "Pod", "metadata": {"name": "pod3", "annotations": {"color": "green"}}},
        {"kind": "Pod", "metadata": {"name": "pod4", "annotations": {"color": "blue"}}},
    ],
}


def test_filter_partial_matches_sometimes_missing_annotations():
    # TestFilterPartialMatchesSometimesMissingAnnotations (issues.k8s.io/45546)
    template = '{.items[?(@.metadata.annotations.color=="blue")].metadata.name}'
    assert render(template, ANNOTATED) == "pod1 pod4"
    with pytest.raises(JsonPathError):
        render(template, ANNOTATED, allow_missing=False)


CONTAINERS = {"kind": "Pod", "spec": {"containers": [{"name": f"fake{index}"} for index in range(4)]}}


@pytest.mark.parametrize(
    ("subscript", "expected"),
    [
        ("[0]", "fake0"),
        ("[0:0]", ""),
        ("[0:-1]", "fake0 fake1 fake2"),
        ("[-1:0]", None),
        ("[-1]", "fake3"),
        ("[-1:]", "fake3"),
        ("[-2]", "fake2"),
        ("[-2:]", "fake2 fake3"),
        ("[-3]", "fake1"),
        ("[-4]", "fake0"),
        ("[-4:]", "fake0 fake1 fake2 fake3"),
        ("[-5]", None),
        ("[5:5]", ""),
        ("[-5:-5]", ""),
        ("[3:1]", None),
        ("[-1:-2]", None),
    ],
)
def test_negative_index(subscript, expected):
    # TestNegativeIndex: None marks the cases client-go expects to fail.
    template = "{.spec.containers" + subscript + ".name}"
    if expected is None:
        with pytest.raises(JsonPathError):
            render(template, CONTAINERS, allow_missing=False)
    else:
        assert render(template, CONTAINERS, allow_missing=False) == expected


def test_running_pods_output():
    # TestRunningPodsJSONPathOutput: the filter path may omit @.
    data = {
        "kind": "List",
        "items": [
            {"kind": "Pod", "metadata": {"name": f"pod{index}"}, "status": {"phase": "Running"}} for index in (1, 2, 3)
        ]
        + [{"resourceVersion": ""}],
    }
    template = '{range .items[?(.status.phase=="Running")]}{.metadata.name}{" is Running\\n"}{end}'
    assert render(template, data) == "pod1 is Running\npod2 is Running\npod3 is Running\n"


SIX = {"kind": "Pod", "spec": {"containers": [{"name": f"fake{index}"} for index in range(6)]}}


@pytest.mark.parametrize(
    ("subscript", "expected"),
    [
        ("[0:]", "fake0 fake1 fake2 fake3 fake4 fake5"),
        ("[0:6:]", "fake0 fake1 fake2 fake3 fake4 fake5"),
        ("[0:6:1]", "fake0 fake1 fake2 fake3 fake4 fake5"),
        ("[0:6:0]", None),
        ("[0:6:-1]", None),
        ("[1:4:2]", "fake1 fake3"),
        ("[1:4:3]", "fake1"),
        ("[1:4:4]", "fake1"),
        ("[0:6:2]", "fake0 fake2 fake4"),
        ("[0:6:3]", "fake0 fake3"),
        ("[0:6:5]", "fake0 fake5"),
        ("[0:6:6]", "fake0"),
    ],
)
def test_step(subscript, expected):
    # TestStep
    template = "{.spec.containers" + subscript + ".name}"
    if expected is None:
        with pytest.raises(JsonPathError):
            render(template, SIX, allow_missing=False)
    else:
        assert render(template, SIX, allow_missing=False) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, "<nil>"),
        (True, "true"),
        (2.5, "2.5"),
        (1e6, "1e+06"),
        (123456.0, "123456"),
        (1e-05, "1e-05"),
        (0.0001, "0.0001"),
    ],
)
def test_scalars_print_as_go_prints_them(value, expected):
    assert render("{.v}", {"v": value}) == expected


@pytest.mark.parametrize(
    ("expression", "expected"),
    [("a.b", "{.a.b}"), (".a.b", "{.a.b}"), ("{a.b}", "{.a.b}"), ("{.a.b}", "{.a.b}"), ("", "")],
)
def test_custom_columns_accept_kubectl_relaxed_paths(expression, expected):
    # kubectl's RelaxedJSONPathExpression (k8s.io/kubectl/pkg/cmd/get/customcolumn.go)
    assert relaxed(expression) == expected


def test_custom_columns_cells_join_results_and_say_none():
    assert column(parse("{.items[*].name}"), {"items": [{"name": "a"}, {"name": "b"}]}) == "a,b"
    assert column(parse("{.missing}"), {"items": []}) == "<none>"
    assert column(parse("{.labels}"), {"labels": {"b": "2", "a": "1"}}) == "map[a:1 b:2]"
    with pytest.raises(JsonPathError):
        relaxed("{.a}{.b}")


def test_module_is_the_cli_one():
    assert jsonpath.__name__ == "workloadmap.cli.printing.jsonpath"
