//! Failure classes: one enum per domain, each class spelled once (its variant
//! and its wire string, in the domain's [`class_enum!`] invocation). The wire
//! strings are what envelopes, results and logs carry; they never change.

/// Declares a domain's failure-class enum: `as_str` (const, so declarations
/// can list classes in constants), `ALL`, `parse`, `Display`, `FromStr` and
/// `From<Class> for String`.
macro_rules! class_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )*
        }

        impl $name {
            /// Every class of the domain, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The class as it appears on the wire.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $wire, )*
                }
            }

            /// The class a wire string names, if it is one of this domain's.
            pub fn parse(s: &str) -> Option<Self> {
                match s {
                    $( $wire => Some($name::$variant), )*
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = ();
            fn from_str(s: &str) -> Result<Self, ()> {
                Self::parse(s).ok_or(())
            }
        }

        impl From<$name> for String {
            fn from(class: $name) -> String {
                class.as_str().to_string()
            }
        }

        impl From<$name> for serde_json::Value {
            fn from(class: $name) -> serde_json::Value {
                serde_json::Value::String(class.as_str().to_string())
            }
        }
    };
}

pub(crate) use class_enum;

/// A `&'static [&'static str]` of classes for a declaration's
/// `failure_classes` (a const, so `as_str` calls are evaluated at compile time).
macro_rules! class_list {
    ($($class:expr),* $(,)?) => {{
        const CLASSES: &[&str] = &[$($class,)*];
        CLASSES
    }};
}

pub(crate) use class_list;
