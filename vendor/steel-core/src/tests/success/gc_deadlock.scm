(spawn-native-thread (lambda () (#%gc-collect)))

(#%gc-collect)
